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
 *
 * Fair between accounts (src/compile/fair-queue.ts): one queue per account, served in turns, the
 * accounts with the fewest compiles running first; an account with nothing queued or running goes
 * ahead of the turns, so its compile waits for at most one compile per worker however many busy
 * accounts keep their queues full. An account may have `queuePerAccount` compiles waiting; one
 * more is a 429 with `Retry-After`.
 *
 * Workers run at nice 10 (where the OS allows): a storm of compiles takes the CPU the server's own
 * thread leaves, never the other way round (requests of every account stay served first).
 */
import {fork, type ChildProcess} from 'node:child_process'
import {createRequire} from 'node:module'
import {setPriority} from 'node:os'
import {pathToFileURL} from 'node:url'
import {rateLimited} from '../core/errors.js'
import type {AppBuild} from '../core/apps/types.js'
import {CompileError} from './errors.js'
import {FairQueue} from './fair-queue.js'
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
  /** Compiles one account may have waiting (not yet running); one more is a 429. */
  queuePerAccount: number
}

export const DEFAULT_COMPILE_LIMITS: CompileLimits = {workers: 2, timeoutMs: 30_000, memoryMb: 512, idleMs: 10 * 60_000, queuePerAccount: 8}

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
  /** Whose compile it is: the unit of fairness and of the queue cap. */
  account: string
  input: CompileInput
  hash: string
  resolve(build: AppBuild): void
  reject(error: Error): void
  /** When a worker took it (ms since the epoch). */
  started?: number
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
const queue = new FairQueue<Job>()
let nextId = 1
/** Recent compile time in ms (moving average), for the `Retry-After` of a full queue. */
let typicalMs = 1_000

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
  // Before its first compile (esbuild's service, started then, inherits the priority).
  if (child.pid) {
    try {
      setPriority(child.pid, 10)
    } catch {
      // Not allowed here (some containers): the worker keeps the server's priority.
    }
  }
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
  if (job.started) typicalMs = (typicalMs * 3 + (Date.now() - job.started)) / 4
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
  job.started = Date.now()
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

/** Compiles each account has running now. */
function runningOf(): (account: string) => number {
  const running = new Map<string, number>()
  for (const w of workers) if (w.job) running.set(w.job.account, (running.get(w.job.account) ?? 0) + 1)
  return (account) => running.get(account) ?? 0
}

/** Hands queued jobs to workers (fairly, see FairQueue): an idle warm one first, then any idle one, then a new one. */
function dispatch(): void {
  while (queue.size) {
    const job = queue.next(runningOf())!
    const idleWorkers = workers.filter((w) => !w.job && w.child.connected)
    const worker = idleWorkers.find((w) => w.warm.has(job.input.engine)) ?? idleWorkers[0] ??
      (workers.length < Math.max(1, limits.workers) ? spawnWorker() : undefined)
    if (!worker) return
    queue.take(job)
    start(worker, job)
  }
}

/**
 * Compiles in a worker process; rejects with a CompileError for anything the source caused, and
 * with a 429 (`Retry-After`) when `account` already has `queuePerAccount` compiles waiting.
 */
export function compileInWorker(input: CompileInput, hash: string, account: string): Promise<AppBuild> {
  const waiting = queue.count(account)
  if (waiting >= limits.queuePerAccount) {
    const seconds = Math.max(1, Math.ceil((typicalMs * (waiting + 1)) / Math.max(1, limits.workers) / 1000))
    return Promise.reject(rateLimited(`too many app compiles waiting; at most ${limits.queuePerAccount} may wait per account`, seconds))
  }
  return new Promise((resolve, reject) => {
    queue.push({id: nextId++, account, input, hash, resolve, reject}, runningOf()(account))
    dispatch()
  })
}

/** Stops every worker (server shutdown); queued compiles fail. */
export function stopCompilers(): void {
  for (const job of queue.drain()) job.reject(new CompileError('the server is shutting down'))
  for (const worker of [...workers]) stopWorker(worker)
}

/** Worker process ids (tests check that a crash leaves the server's own process alone). */
export const workerPids = (): number[] => workers.map((w) => w.child.pid ?? 0)
