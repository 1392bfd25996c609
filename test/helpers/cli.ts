import {spawn, type ChildProcess} from 'node:child_process'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

export const BIN = join(fileURLToPath(new URL('../..', import.meta.url)), 'bin', 'run.js')

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
}

/** Environment without anything that would pick a backend by accident. */
function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {...process.env}
  for (const key of Object.keys(env)) if (key.startsWith('SVC_')) delete env[key]
  return {...env, NO_COLOR: '1', ...extra}
}

/** Runs the real `svc` binary (built dist) and collects its output. */
export function svc(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {cwd: options.cwd, env: cleanEnv(options.env)})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      let json: unknown
      try {
        json = JSON.parse(stdout)
      } catch {
        json = undefined
      }
      resolve({code: code ?? -1, stdout, stderr, json})
    })
    child.stdin.end(options.input ?? '')
  })
}

export interface ServeProcess {
  url: string
  child: ChildProcess
  output(): string
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** Starts `svc serve --port 0` over a data dir and waits for its `Listening on` line. */
export function svcServe(dataDir: string, extraArgs: string[] = [], options: CliOptions = {}): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    // Test upstreams (test/flows/stub.ts) listen on 127.0.0.1: the egress policy must let connectors reach it.
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', dataDir, '--allow-connector-hosts', '127.0.0.1', ...extraArgs], {
      cwd: options.cwd, env: cleanEnv(options.env),
    })
    let out = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`svc serve did not start: ${out}`))
    }, options.timeoutMs ?? 30_000)
    const onData = (d: Buffer) => {
      out += d.toString()
      const m = /Listening on (http:\/\/\S+)/.exec(out)
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
