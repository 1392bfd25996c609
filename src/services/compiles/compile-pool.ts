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
import {rateLimited} from '../../core/errors.js'
import type {AppBuild} from '../../core/apps/types.js'
import {CompileError} from '../../compile/errors.js'
import {FairQueue} from '../../compile/fair-queue.js'
import type {CompileInput} from '../../compile/index.js'
import type {WorkerReply, WorkerRequest} from '../../compile/worker.js'

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

/** One pool's state (a server's: createServices makes one; nothing is shared between pools). */
interface Pool {
  limits: CompileLimits
  workers: Worker[]
  /** One queue per account, served in turns (FairQueue). */
  queue: FairQueue<Job>
  nextId: number
  /** Recent compile time in ms (moving average), for the `Retry-After` of a full queue. */
  typicalMs: number
  stopped: boolean
}

/** A server's compile workers: `compile` queues a compile, `stop` ends the workers (queued compiles fail). */
export interface CompilePool {
  readonly limits: Readonly<CompileLimits>
  /**
   * Compiles in a worker process; rejects with a CompileError for anything the source caused, and
   * with a 429 (`Retry-After`) when `account` already has `queuePerAccount` compiles waiting.
   */
  compile(input: CompileInput, hash: string, account: string): Promise<AppBuild>
  /** Stops every worker (server shutdown); queued compiles fail, later ones too. */
  stop(): void
}

/** A compile pool with `changes` over the default limits (`svc serve --quota compile_*`). Workers start at the first compile. */
export function createCompilePool(changes: Partial<CompileLimits> = {}): CompilePool {
  const pool: Pool = {
    limits: {...DEFAULT_COMPILE_LIMITS, ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined))},
    workers: [], queue: new FairQueue<Job>(), nextId: 1, typicalMs: 1_000, stopped: false,
  }
  return {
    limits: pool.limits,
    compile: (input, hash, account) => compileInWorker(pool, input, hash, account),
    stop: () => stopCompilers(pool),
  }
}

function workerEntry(): {file: URL; execArgv: string[]} {
  // Under the TypeScript sources (tests, bin/dev.js) the worker is a .ts file run through tsx.
  const ts = import.meta.url.endsWith('.ts')
  const file = new URL(ts ? '../../compile/worker.ts' : '../../compile/worker.js', import.meta.url)
  const execArgv = ts ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] : []
  return {file, execArgv}
}

function setRef(worker: Worker, ref: boolean): void {
  const method = ref ? 'ref' : 'unref'
  worker.child[method]()
  ;(worker.child.channel as {ref?(): void; unref?(): void} | undefined)?.[method]?.()
}

function spawnWorker(pool: Pool): Worker {
  const {file, execArgv} = workerEntry()
  const child = fork(file, [], {
    execArgv: [...execArgv, `--max-old-space-size=${pool.limits.memoryMb}`],
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
  child.on('message', (reply: WorkerReply) => finish(pool, worker, reply))
  child.on('exit', (code, signal) => onExit(pool, worker, code, signal))
  child.on('error', () => undefined)
  pool.workers.push(worker)
  return worker
}

function finish(pool: Pool, worker: Worker, reply: WorkerReply): void {
  const job = worker.job
  if (!job || reply.id !== job.id) return
  clearTimeout(worker.jobTimer)
  if ('prepared' in reply) {
    worker.jobTimer = setTimeout(() => {
      worker.timedOut = true
      stopWorker(worker)
    }, pool.limits.timeoutMs)
    return
  }
  worker.job = null
  worker.warm.add(job.input.engine)
  if (job.started) pool.typicalMs = (pool.typicalMs * 3 + (Date.now() - job.started)) / 4
  if (reply.ok) job.resolve(reply.build)
  else if ('compileError' in reply) job.reject(new CompileError(reply.compileError.message, reply.compileError.line, reply.compileError.column))
  else job.reject(new CompileError(`the compiler failed on this source (${reply.internal.replace(/\/\S*\//g, '').slice(0, 200)})`))
  idle(pool, worker)
}

function idle(pool: Pool, worker: Worker): void {
  setRef(worker, false)
  worker.idleTimer = setTimeout(() => stopWorker(worker), pool.limits.idleMs)
  worker.idleTimer.unref()
  dispatch(pool)
}

function onExit(pool: Pool, worker: Worker, code: number | null, signal: NodeJS.Signals | null): void {
  const index = pool.workers.indexOf(worker)
  if (index >= 0) pool.workers.splice(index, 1)
  clearTimeout(worker.jobTimer)
  clearTimeout(worker.idleTimer)
  const job = worker.job
  worker.job = null
  if (job) {
    const seconds = Math.round(pool.limits.timeoutMs / 100) / 10
    let message: string
    if (worker.timedOut) message = `the compiler took longer than ${seconds} s and was stopped`
    else if (signal === 'SIGABRT' || code === 134) message = `the compiler ran out of memory (limit ${pool.limits.memoryMb} MB) and was stopped`
    else message = `the compiler crashed on this source (${signal ?? `exit code ${code}`}); code nested very deeply is a common cause`
    job.reject(new CompileError(message))
  }
  dispatch(pool)
}

function stopWorker(worker: Worker): void {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL')
}

function start(pool: Pool, worker: Worker, job: Job): void {
  clearTimeout(worker.idleTimer)
  worker.job = job
  job.started = Date.now()
  worker.timedOut = false
  setRef(worker, true)
  // Until the worker has loaded the compilers: a generous bound (a loaded machine imports Vite slowly).
  worker.jobTimer = setTimeout(() => {
    worker.timedOut = true
    stopWorker(worker)
  }, pool.limits.timeoutMs + PREPARE_MS)
  const request: WorkerRequest = {type: 'compile', id: job.id, input: job.input, hash: job.hash}
  worker.child.send(request, (error) => {
    if (error) stopWorker(worker)
  })
}

/** Compiles each account has running now. */
function runningOf(pool: Pool): (account: string) => number {
  const running = new Map<string, number>()
  for (const w of pool.workers) if (w.job) running.set(w.job.account, (running.get(w.job.account) ?? 0) + 1)
  return (account) => running.get(account) ?? 0
}

/** Hands queued jobs to workers (fairly, see FairQueue): an idle warm one first, then any idle one, then a new one. */
function dispatch(pool: Pool): void {
  while (pool.queue.size) {
    const job = pool.queue.next(runningOf(pool))!
    const idleWorkers = pool.workers.filter((w) => !w.job && w.child.connected)
    const worker = idleWorkers.find((w) => w.warm.has(job.input.engine)) ?? idleWorkers[0] ??
      (pool.workers.length < Math.max(1, pool.limits.workers) ? spawnWorker(pool) : undefined)
    if (!worker) return
    pool.queue.take(job)
    start(pool, worker, job)
  }
}

/** CompilePool.compile. */
function compileInWorker(pool: Pool, input: CompileInput, hash: string, account: string): Promise<AppBuild> {
  if (pool.stopped) return Promise.reject(new CompileError('the server is shutting down'))
  const {limits, queue} = pool
  const waiting = queue.count(account)
  if (waiting >= limits.queuePerAccount) {
    const seconds = Math.max(1, Math.ceil((pool.typicalMs * (waiting + 1)) / Math.max(1, limits.workers) / 1000))
    return Promise.reject(rateLimited(`too many app compiles waiting; at most ${limits.queuePerAccount} may wait per account`, seconds))
  }
  return new Promise((resolve, reject) => {
    queue.push({id: pool.nextId++, account, input, hash, resolve, reject}, runningOf(pool)(account))
    dispatch(pool)
  })
}

/** CompilePool.stop. */
function stopCompilers(pool: Pool): void {
  pool.stopped = true
  for (const job of pool.queue.drain()) job.reject(new CompileError('the server is shutting down'))
  for (const worker of [...pool.workers]) stopWorker(worker)
}
