// How tests run the `svc` CLI (docs/architecture.md "Tests"):
// - `svc(args, options)` runs the built CLI (dist/, as bin/run.js does: the prompt-render fast path,
//   then oclif) INSIDE the test process, with its own cwd, env, stdin, stdout/stderr and exit code.
//   A spawned `node bin/run.js` costs 0.4 s on a quiet machine and several seconds on a busy one;
//   in-process a call takes milliseconds once oclif and the command are loaded.
// - `svcProcess(args, options)` (or `svc(args, {process: true})`) spawns the real binary: for tests
//   where the process boundary is what is tested (start-up, loaded modules, NODE_OPTIONS, signals,
//   several processes writing one data dir). Commands that run until signalled (serve, dev,
//   app dev) and env that only a new process can honour (NODE_OPTIONS, FORCE_COLOR) always spawn.
// - `svcServe(dataDir)` starts a real `svc serve --port 0`.
import {spawn, type ChildProcess} from 'node:child_process'
import {afterAll} from 'vitest'
import {Console} from 'node:console'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {Readable, Writable} from 'node:stream'
import {fileURLToPath, pathToFileURL} from 'node:url'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const BIN = join(ROOT, 'bin', 'run.js')

export interface CliResult {
  code: number
  stdout: string
  stderr: string
  /** stdout parsed as JSON (for --json calls), else undefined. */
  json: any
}

export interface CliOptions {
  cwd?: string
  env?: Record<string, string | undefined>
  input?: string
  timeoutMs?: number
  /** Spawn `node bin/run.js` instead of running the CLI in the test process. */
  process?: boolean
}

/**
 * The environment a command sees: the test process's, without anything that would pick a
 * backend by accident (SVC_*), without NODE_ENV (vitest sets it to "test", which makes oclif
 * transpile src/ with tsx instead of running dist/: 2.5x slower, and not what users run), NO_COLOR.
 */
export function cliEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {...process.env}
  for (const key of Object.keys(env)) if (key.startsWith('SVC_') || key === 'NODE_ENV') delete env[key]
  // Profiles and credentials (`svc login`) in a folder of this test file unless the test gives its
  // own: never ~/.config/svc, which every test file (and the developer) would share.
  const merged: NodeJS.ProcessEnv = {...env, NO_COLOR: '1', SVC_CONFIG_DIR: fileConfigDir(), ...extra}
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key]
  return merged
}

let configDirOfFile: string | undefined
/** An empty config folder for this test file's commands, made at first use. */
function fileConfigDir(): string {
  return (configDirOfFile ??= mkdtempSync(join(tmpdir(), 'svc-config-')))
}

function result(code: number, stdout: string, stderr: string): CliResult {
  let json: unknown
  try {
    json = JSON.parse(stdout)
  } catch {
    json = undefined
  }
  return {code, stdout, stderr, json}
}

/** Runs the real `svc` binary (built dist) in a new process and collects its output. */
export function svcProcess(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = killOnExit(spawn(process.execPath, [BIN, ...args], {cwd: options.cwd, env: cliEnv(options.env)}))
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve(result(code ?? -1, stdout, stderr))
    })
    child.stdin.end(options.input ?? '')
  })
}

/** Commands that run until signalled: only a process of their own can be stopped. */
const LONG_RUNNING = [['serve'], ['dev'], ['app', 'dev']]
/** Environment variables read when a process starts (by Node, or by modules at import). */
const PROCESS_ENV = ['NODE_OPTIONS', 'FORCE_COLOR']

function needsProcess(args: string[], options: CliOptions): boolean {
  if (options.process) return true
  if (Object.keys(options.env ?? {}).some((key) => PROCESS_ENV.includes(key))) return true
  const words = args.filter((a) => !a.startsWith('-'))
  return LONG_RUNNING.some((command) => command.every((word, i) => words[i] === word)) && !args.includes('--help')
}

/**
 * Runs `svc ARGS` and collects its output: in the test process unless the process boundary
 * matters (see the top of this file), in which case it spawns `bin/run.js`.
 */
export function svc(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return needsProcess(args, options) ? svcProcess(args, options) : svcInProcess(args, options)
}

// ---------------------------------------------------------------------------------------------
// In-process runs. A command reads and writes process-wide state: process.env, process.cwd(),
// process.stdin/stdout/stderr, console, process.exitCode (and oclif's exit). Each run swaps all
// of them for its own and puts them back after, so runs in one test file are serialised (a queue);
// vitest runs each file in its own child process (pool: 'forks', where process.chdir works).

const nodeRequire = createRequire(import.meta.url)
/** Node's import() (vitest would transform dist/ files itself): the same module instances oclif loads. */
const nativeImport = nodeRequire('./native-import.cjs') as (url: string) => Promise<any>

let fastPathModule: {fastRender(argv: string[], loadBackendRender: () => Promise<unknown>): Promise<boolean>} | undefined
/** The fast path's bundle (CommonJS), loaded once with its code cache as bin/run.js loads it. */
function fastPath(): NonNullable<typeof fastPathModule> {
  const {loadWithCodeCache} = nodeRequire(join(ROOT, 'dist', 'code-cache.cjs'))
  return (fastPathModule ??= loadWithCodeCache(pathToFileURL(join(ROOT, 'dist', 'fastpath-prompt-render.cjs'))))
}

class ProcessExit extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`)
  }
}

/** A writable stream that keeps what is written (not a terminal, like a pipe). */
class Capture extends Writable {
  text = ''
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString()
    done()
  }
}

let queue: Promise<unknown> = Promise.resolve()

function svcInProcess(args: string[], options: CliOptions): Promise<CliResult> {
  const run = queue.then(() => runInProcess(args, options))
  queue = run.catch(() => undefined)
  return run
}

const STREAMS = ['stdin', 'stdout', 'stderr'] as const

async function runInProcess(args: string[], options: CliOptions): Promise<CliResult> {
  const stdout = new Capture()
  const stderr = new Capture()
  const stdin = Readable.from(options.input ? [Buffer.from(options.input)] : [])
  const fake = {stdin, stdout, stderr}

  const saved = {
    env: {...process.env},
    cwd: process.cwd(),
    argv: process.argv,
    exitCode: process.exitCode,
    exit: process.exit,
    console: globalThis.console,
    streams: Object.fromEntries(STREAMS.map((name) => [name, Object.getOwnPropertyDescriptor(process, name)!])),
  }
  // The real process.env object is changed in place (a replaced object would not reach libuv: HOME).
  const setEnv = (env: NodeJS.ProcessEnv) => {
    for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key]
    Object.assign(process.env, env)
  }
  const oclif = (await nativeImport(pathToFileURL(join(ROOT, 'dist', 'oclif.js')).href)) as typeof import('@oclif/core') & {Exit: {exit(code?: number): void}}
  const {Exit} = oclif
  const oclifExit = Exit.exit
  let exited: number | undefined

  setEnv(cliEnv(options.env))
  process.chdir(options.cwd ?? saved.cwd)
  process.argv = [process.execPath, BIN, ...args]
  process.exitCode = undefined
  process.exit = ((code?: number | string | null) => {
    throw new ProcessExit(Number(code ?? process.exitCode ?? 0))
  }) as typeof process.exit
  Exit.exit = (code = 0) => {
    exited = code
  }
  for (const name of STREAMS) Object.defineProperty(process, name, {value: fake[name], configurable: true, enumerable: true, writable: true})
  globalThis.console = new Console({stdout, stderr, colorMode: false})

  let timer: NodeJS.Timeout | undefined
  try {
    const command = (async () => {
      // bin/run.js: the fast path for `prompt render`, else oclif, the bundle every command imports
      // as `#oclif` (execute() = run() + handle()).
      if (args[0] === 'prompt' && args[1] === 'render' && !process.env.SVC_NO_FASTPATH) {
        const backendRender = () => nativeImport(pathToFileURL(join(ROOT, 'dist', 'fastpath-backend-render.js')).href)
        if (await fastPath().fastRender(args.slice(2), backendRender)) return
      }
      await oclif.run(args, ROOT).catch((error: Error) => oclif.handle(error))
    })()
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), options.timeoutMs ?? 60_000)))
    const outcome = await Promise.race([command.then(() => 'done' as const), timeout]).catch((error: unknown) => {
      if (error instanceof ProcessExit) return error.code
      stderr.text += `${(error as Error)?.stack ?? error}\n`
      return 1
    })
    if (outcome === 'timeout') return result(-1, stdout.text, `${stderr.text}[svc ${args.join(' ')}: still running after ${options.timeoutMs ?? 60_000} ms]\n`)
    const code = typeof outcome === 'number' ? outcome : exited ?? Number(process.exitCode ?? 0)
    return result(code, stdout.text, stderr.text)
  } finally {
    clearTimeout(timer)
    globalThis.console = saved.console
    for (const name of STREAMS) Object.defineProperty(process, name, saved.streams[name]!)
    Exit.exit = oclifExit
    process.exit = saved.exit
    process.exitCode = saved.exitCode
    process.argv = saved.argv
    process.chdir(saved.cwd)
    setEnv(saved.env)
  }
}

// ---------------------------------------------------------------------------------------------

export interface ServeProcess {
  url: string
  child: ChildProcess
  output(): string
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/**
 * Processes a test file spawned that are still running when the file ends (after its own afterAll
 * hooks): killed then, so a server a failed test (or a forgotten afterAll) left behind does not
 * live on into later files, holding ports, data dirs, PostgreSQL connections and CPU. (vitest ends
 * a file's worker without its 'exit' event: a process.on('exit') handler would not run.)
 */
const running = new Set<ChildProcess>()

/** Kills `child` (SIGKILL) if it still runs when the test file ends. Returns it. */
export function killOnExit<T extends ChildProcess>(child: T): T {
  running.add(child)
  child.once('exit', () => running.delete(child))
  return child
}

async function killLeftovers(): Promise<void> {
  const left = [...running].filter((child) => child.exitCode === null && child.signalCode === null)
  running.clear()
  await Promise.all(left.map((child) => new Promise<void>((done) => {
    child.once('exit', () => done())
    if (!child.kill('SIGKILL')) done()
  })))
}

// In a test file: registered when the file imports this module, so it runs after the file's own afterAll hooks.
if (process.env.VITEST_WORKER_ID !== undefined) {
  try {
    afterAll(killLeftovers)
  } catch {
    // Imported outside a file's collection.
  }
}

/** Starts `svc serve --port 0` over a data dir and waits for its `Listening on` line. */
export function svcServe(dataDir: string, extraArgs: string[] = [], options: CliOptions = {}): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    // Test upstreams (test/flows/stub.ts) listen on 127.0.0.1: the egress policy must let connectors reach it.
    const child = killOnExit(spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', dataDir, '--allow-connector-hosts', '127.0.0.1', ...extraArgs], {
      cwd: options.cwd, env: cliEnv(options.env),
    }))
    let out = ''
    // Generous: a start of 0.5 s on a quiet machine takes many seconds under CI's load.
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`svc serve did not start: ${out}`))
    }, options.timeoutMs ?? 90_000)
    const onData = (d: Buffer) => {
      out += d.toString()
      const m = /Listening on (http:\/\/[^\s"]+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve({
          url: m[1]!,
          child,
          output: () => out,
          stop: (signal = 'SIGTERM') => new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done(child.exitCode)
            child.once('exit', (code) => done(code))
            child.kill(signal)
          }),
        })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', (d) => (out += d.toString()))
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`svc serve exited ${code}: ${out}`))
    })
  })
}

/** Starts `svc app dev ARGS` and resolves with the URL it prints (`Dev server: URL`), the process and its stdout lines so far. */
export function startAppDev(args: string[]): Promise<{url: string; child: ChildProcess; lines: () => string[]}> {
  return new Promise((resolve, reject) => {
    const child = killOnExit(spawn(process.execPath, [BIN, 'app', 'dev', ...args], {env: cliEnv()}))
    let out = ''
    let err = ''
    // Generous: a Vite start takes many seconds under CI's load.
    const timer = setTimeout(() => reject(new Error(`svc app dev did not start: ${out}${err}`)), 90_000)
    child.stdout.on('data', (d) => {
      out += d
      const m = /Dev server: (http:\/\/\S+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve({url: m[1]!, child, lines: () => out.split('\n')})
      }
    })
    child.stderr.on('data', (d) => (err += d))
    child.on('exit', (code) => reject(new Error(`svc app dev exited ${code}: ${out}${err}`)))
  })
}
