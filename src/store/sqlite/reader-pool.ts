/**
 * Reader connections in worker threads, for the reads that grow with the data: SQLite runs a
 * statement on the thread that calls it, and the server's connection is on the server's one thread,
 * so a scan of a 1M-record db (a deep page, a filter on an unindexed field, a search, an export
 * page over every table) held every other request for 0.3-2 s. A worker has its own connection
 * (read-only) and WAL lets it read beside the server's writer: it sees every write committed before
 * the read was sent, which is every write answered before it.
 *
 * Reads wait in one lane per account and the lanes take turns: an account that keeps every thread
 * busy with scans delays another account's long read by at most the reads already running, never
 * by its own queue. A lane holds at most LANE_MAX reads; the next one is refused (429, Retry-After)
 * rather than queued without end.
 *
 * Started by a long-running server (`svc serve`: Store.readers().start()), stopped before the store
 * closes. Not started (the embedded CLI backend, one user's process), every read runs on the
 * calling thread as before.
 */
import {once} from 'node:events'
import {availableParallelism} from 'node:os'
import type {Worker} from 'node:worker_threads'
import {rateLimited, SvcError} from '../../core/errors.js'
import {dataFile, sqliteAddon} from './connection.js'
import {mapSqliteError} from './errors.js'
import type {ReaderReply, ReaderRequest} from './reader-worker.js'
import {sqliteWorker} from './threads.js'

/** Reads one account may have waiting; more are refused. */
export const LANE_MAX = 32
/** How long a stopping worker may finish its statement before it is terminated. */
const STOP_GRACE_MS = 5000

interface Job {
  request: ReaderRequest
  resolve(rows: unknown): void
  reject(error: unknown): void
}

interface Reader {
  worker: Worker
  /** Its connection is open and it listens (it said 'ready'). */
  ready: boolean
  job?: Job
}

export interface ReaderPool {
  /** Whether reads are sent to the threads (started and not stopped). */
  readonly running: boolean
  /** Starts `threads` reader threads (default: the machine's cores, 2 to 4). Idempotent. */
  start(options?: {threads?: number; log?: (line: string) => void}): void
  /** Refuses the reads still waiting, lets each thread finish its statement, closes their connections. */
  stop(): Promise<void>
  all<R>(sql: string, params: unknown[], lane: string): Promise<R[]>
  get<R>(sql: string, params: unknown[], lane: string): Promise<R | undefined>
}

export function readerPool(dataDir: string): ReaderPool {
  const readers: Reader[] = []
  const lanes = new Map<string, Job[]>()
  let nextId = 1
  let running = false
  let log: ((line: string) => void) | undefined

  const spawnReader = (): Reader => {
    const worker = sqliteWorker('reader-worker', {file: dataFile(dataDir), addon: sqliteAddon()})
    worker.unref()
    const reader: Reader = {worker, ready: false}
    worker.on('message', (reply: ReaderReply | 'ready') => {
      if (reply === 'ready') {
        reader.ready = true
        return dispatch()
      }
      const job = reader.job
      reader.job = undefined
      if (job) {
        if ('error' in reply) job.reject(mapSqliteError(Object.assign(new Error(reply.error.message), {code: reply.error.code})))
        else job.resolve(reply.rows)
      }
      dispatch()
    })
    worker.on('error', (error) => log?.(`sqlite reader stopped: ${error.message}`))
    worker.on('exit', () => {
      const at = readers.indexOf(reader)
      if (at >= 0) readers.splice(at, 1)
      reader.job?.reject(new SvcError('unavailable', 503, 'storage unavailable: a reader of the database stopped; try again'))
      reader.job = undefined
      // A thread that died is replaced while the pool runs; one that never opened its connection is
      // not (it would fail again), and with no thread left the reads go back to the server's thread.
      if (running && reader.ready) readers.push(spawnReader())
      else if (running && readers.length === 0) {
        running = false
        log?.('sqlite readers could not start: reads run on the server\'s thread')
        refuseWaiting('storage unavailable: the readers of the database stopped; try again')
      }
      dispatch()
    })
    return reader
  }

  /** Gives each idle thread the next read, the lanes taking turns (a Map keeps its insertion order). */
  const dispatch = () => {
    for (const reader of readers) {
      if (reader.job || !reader.ready) continue
      const next = lanes.entries().next()
      if (next.done) return
      const [lane, jobs] = next.value
      const job = jobs.shift()!
      lanes.delete(lane)
      if (jobs.length) lanes.set(lane, jobs) // to the back of the turn
      reader.job = job
      reader.worker.postMessage(job.request)
    }
  }

  const refuseWaiting = (message: string) => {
    for (const jobs of lanes.values()) for (const job of jobs) job.reject(new SvcError('unavailable', 503, message))
    lanes.clear()
  }

  const send = <T>(op: 'all' | 'get', sql: string, params: unknown[], lane: string): Promise<T> => {
    const jobs = lanes.get(lane) ?? []
    if (jobs.length >= LANE_MAX) {
      return Promise.reject(rateLimited(`too many long reads of this account at once (at most ${LANE_MAX} wait): try again shortly`, 1))
    }
    return new Promise<T>((resolve, reject) => {
      jobs.push({request: {id: nextId++, op, sql, params}, resolve: resolve as (rows: unknown) => void, reject})
      if (!lanes.has(lane)) lanes.set(lane, jobs)
      dispatch()
    })
  }

  return {
    get running() {
      return running
    },
    start(options = {}) {
      if (running) return
      running = true
      log = options.log
      const threads = options.threads ?? Math.min(4, Math.max(2, availableParallelism()))
      for (let i = 0; i < threads; i++) readers.push(spawnReader())
    },
    async stop() {
      if (!running) return
      running = false
      refuseWaiting('the server is stopping')
      await Promise.all([...readers].map(async ({worker}) => {
        worker.ref() // the process waits for the thread to close its connection
        const exited = once(worker, 'exit')
        worker.postMessage('stop')
        const grace = setTimeout(() => void worker.terminate(), STOP_GRACE_MS)
        await exited
        clearTimeout(grace)
      }))
    },
    all: (sql, params, lane) => send('all', sql, params, lane),
    get: (sql, params, lane) => send('get', sql, params, lane),
  }
}
