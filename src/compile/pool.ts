/**
 * The compile worker pool: compilers never run in the server's own process. A few child
 * processes (node's child_process.fork, so a native crash of rolldown stays in the child) each
 * run one compile at a time under a heap limit (`--max-old-space-size`) and a kill timer. A crash,
 * an exhausted heap or an overrun ends that worker only: the compile answers a CompileError (a 422
 * under `source_code`) and the next compile gets a fresh worker.
 *
 * Workers start lazily (the first compile), stay warm (Vite and its plugins are imported once per
 * worker), hold no reference on the event loop while idle (a CLI command that compiled still exits
 * at once) and exit after `idleMs` without work, or when the parent goes away.
 */
import {fork, type ChildProcess} from 'node:child_process'
import {createRequire} from 'node:module'
import {pathToFileURL} from 'node:url'
import type {AppBuild} from '../store/apps/types.js'
import {CompileError} from './errors.js'
import type {CompileInput} from './index.js'
import type {WorkerReply, WorkerRequest} from './worker.js'

export interface CompileLimits {
  /** Worker processes at most (compiles beyond that wait in a queue). */
  workers: number
  /** Milliseconds one compile may take once the compilers are loaded (loading them has its own bound). */
  timeoutMs: number
  /** Heap of a worker in MB (`--max-old-space-size`). */
  memoryMb: number
  /** An idle worker exits after this many milliseconds. */
  idleMs: number
}

export const DEFAULT_COMPILE_LIMITS: CompileLimits = {workers: 2, timeoutMs: 30_000, memoryMb: 512, idleMs: 10 * 60_000}

/** Extra time a compile may spend loading the compilers in a fresh worker. */
const PREPARE_MS = 120_000

let limits: CompileLimits = {...DEFAULT_COMPILE_LIMITS}

/** Changes the limits of compiles started from now on (`svc serve --compile-*`). */
export function configureCompilers(changes: Partial<CompileLimits>): void {
  limits = {...limits, ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined))}
}

export const compileLimits = (): Readonly<CompileLimits> => limits

interface Job {
  id: number
  input: CompileInput
  hash: string
  resolve(build: AppBuild): void
  reject(error: Error): void
}

interface Worker {
  child: ChildProcess
  job: Job | null
  /** Engines this worker has compiled (their compilers are loaded: a warm worker). */
  warm: Set<string>
  jobTimer?: NodeJS.Timeout
  idleTimer?: NodeJS.Timeout
  timedOut: boolean
}

const workers: Worker[] = []
const queue: Job[] = []
let nextId = 1

function workerEntry(): {file: URL; execArgv: string[]} {
  // Under the TypeScript sources (tests, bin/dev.js) the worker is a .ts file run through tsx.
  const ts = import.meta.url.endsWith('.ts')
  const file = new URL(ts ? './worker.ts' : './worker.js', import.meta.url)
  const execArgv = ts ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] : []
  return {file, execArgv}
}

function setRef(worker: Worker, ref: boolean): void {
  const method = ref ? 'ref' : 'unref'
  worker.child[method]()
  ;(worker.child.channel as {ref?(): void; unref?(): void} | undefined)?.[method]?.()
}

function spawnWorker(): Worker {
  const {file, execArgv} = workerEntry()
  const child = fork(file, [], {
    execArgv: [...execArgv, `--max-old-space-size=${limits.memoryMb}`],
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    env: {...process.env, NODE_OPTIONS: ''},
  })
  const worker: Worker = {child, job: null, warm: new Set(), timedOut: false}
  child.on('message', (reply: WorkerReply) => finish(worker, reply))
  child.on('exit', (code, signal) => onExit(worker, code, signal))
  child.on('error', () => undefined)
  workers.push(worker)
  return worker
}

function finish(worker: Worker, reply: WorkerReply): void {
  const job = worker.job
  if (!job || reply.id !== job.id) return
  clearTimeout(worker.jobTimer)
  if ('prepared' in reply) {
    worker.jobTimer = setTimeout(() => {
      worker.timedOut = true
      stopWorker(worker)
    }, limits.timeoutMs)
    return
  }
  worker.job = null
  worker.warm.add(job.input.engine)
  if (reply.ok) job.resolve(reply.build)
  else if ('compileError' in reply) job.reject(new CompileError(reply.compileError.message, reply.compileError.line, reply.compileError.column))
  else job.reject(new CompileError(`the compiler failed on this source (${reply.internal.replace(/\/\S*\//g, '').slice(0, 200)})`))
  idle(worker)
}

function idle(worker: Worker): void {
  setRef(worker, false)
  worker.idleTimer = setTimeout(() => stopWorker(worker), limits.idleMs)
  worker.idleTimer.unref()
  dispatch()
}

function onExit(worker: Worker, code: number | null, signal: NodeJS.Signals | null): void {
  const index = workers.indexOf(worker)
  if (index >= 0) workers.splice(index, 1)
  clearTimeout(worker.jobTimer)
  clearTimeout(worker.idleTimer)
  const job = worker.job
  worker.job = null
  if (job) {
    const seconds = Math.round(limits.timeoutMs / 100) / 10
    let message: string
    if (worker.timedOut) message = `the compiler took longer than ${seconds} s and was stopped`
    else if (signal === 'SIGABRT' || code === 134) message = `the compiler ran out of memory (limit ${limits.memoryMb} MB) and was stopped`
    else message = `the compiler crashed on this source (${signal ?? `exit code ${code}`}); code nested very deeply is a common cause`
    job.reject(new CompileError(message))
  }
  dispatch()
}

function stopWorker(worker: Worker): void {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL')
}

function start(worker: Worker, job: Job): void {
  clearTimeout(worker.idleTimer)
  worker.job = job
  worker.timedOut = false
  setRef(worker, true)
  // Until the worker has loaded the compilers: a generous bound (a loaded machine imports Vite slowly).
  worker.jobTimer = setTimeout(() => {
    worker.timedOut = true
    stopWorker(worker)
  }, limits.timeoutMs + PREPARE_MS)
  const request: WorkerRequest = {type: 'compile', id: job.id, input: job.input, hash: job.hash}
  worker.child.send(request, (error) => {
    if (error) stopWorker(worker)
  })
}

/** Hands queued jobs to workers: an idle warm one first, then any idle one, then a new one. */
function dispatch(): void {
  while (queue.length) {
    const job = queue[0]!
    const idleWorkers = workers.filter((w) => !w.job && w.child.connected)
    const worker = idleWorkers.find((w) => w.warm.has(job.input.engine)) ?? idleWorkers[0] ??
      (workers.length < Math.max(1, limits.workers) ? spawnWorker() : undefined)
    if (!worker) return
    queue.shift()
    start(worker, job)
  }
}

/** Compiles in a worker process; rejects with a CompileError for anything the source caused. */
export function compileInWorker(input: CompileInput, hash: string): Promise<AppBuild> {
  return new Promise((resolve, reject) => {
    queue.push({id: nextId++, input, hash, resolve, reject})
    dispatch()
  })
}

/** Stops every worker (server shutdown); queued compiles fail. */
export function stopCompilers(): void {
  for (const job of queue.splice(0)) job.reject(new CompileError('the server is shutting down'))
  for (const worker of [...workers]) stopWorker(worker)
}

/** Worker process ids (tests check that a crash leaves the server's own process alone). */
export const workerPids = (): number[] => workers.map((w) => w.child.pid ?? 0)
