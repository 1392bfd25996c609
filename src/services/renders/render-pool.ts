/**
 * Prompt renders of the server run in a small pool of worker threads, not on the event loop:
 * - a hard deadline that holds inside a single tag or filter: a render still running after
 *   `deadlineMs` has its thread terminated (V8 stops it wherever it is) and answers 422;
 * - a heap limit per thread (`resourceLimits`): running out of it is a 422 too;
 * - fairness for any number of busy accounts: one account renders on at most one thread at a time
 *   and may queue at most `queuePerAccount` renders (then 429); the pool has `threads` threads
 *   plus one in reserve, and only a *light* account may take the last free one. An account is light
 *   once it has finished a render within `sliceMs` and none of its renders ran longer than that in
 *   the last `heavyMs`; any set of other accounts (new ones included) holds at most `threads`
 *   threads and never the last. A light account whose render overruns the slice while holding the
 *   last thread has that render stopped and queued again as heavy, so the reserve is held by one
 *   render for at most `sliceMs` (issue 24 M5: two hostile accounts filled both threads and a
 *   third account's one-line render waited 0.7-0.9 s);
 * - among waiting renders, the account that used the least render time lately goes first;
 * - on Linux a thread that runs a heavy account's render is lowered to nice 10 for good, below the
 *   event loop and the threads of light accounts' renders.
 * Threads start on demand (one idle spare is kept ready), stay warm, and never hold the process
 * open while idle.
 */
import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {setPriority} from 'node:os'
import {pathToFileURL} from 'node:url'
import {Worker} from 'node:worker_threads'
import {rateLimited, SvcError, validation, type ErrorCode} from '../../core/errors.js'
import type {RenderInput} from '../../core/prompts/render.js'
import type {RenderReply, RenderRequest} from './render-worker.js'

export interface RenderPoolLimits {
  /** Threads any set of accounts may hold at once; the pool adds one more kept for light accounts. */
  threads: number
  /** Milliseconds from the start of a render to its thread being stopped. */
  deadlineMs: number
  /** Heap of a render thread, MB. */
  memoryMb: number
  /** Renders one account may have waiting at once. */
  queuePerAccount: number
  /** A render using more CPU time than this (wall time where the thread's CPU time is unknown)
   *  makes its account heavy (no longer light). */
  sliceMs: number
  /** How long an account stays heavy after its last render that ran past `sliceMs`. */
  heavyMs: number
}

export const DEFAULT_RENDER_POOL: RenderPoolLimits = {
  threads: 2, deadlineMs: 2_000, memoryMb: 128, queuePerAccount: 8, sliceMs: 200, heavyMs: 60_000,
}

interface Job {
  id: number
  account: string
  input: RenderInput
  resolve(text: string): void
  reject(error: Error): void
}

interface Lane {
  worker: Worker
  job: Job | null
  /** The thread has loaded and can take a render. */
  ready: boolean
  started: number
  /** Linux thread id of the worker (its CPU time is read from /proc), else undefined. */
  tid?: number
  /** CPU time of the thread when its job started, ms. */
  cpuAtStart: number
  /** The account of the job was light when it started on this lane. */
  light: boolean
  /** The thread runs at nice 10 (it ran a heavy account's render; a priority is never raised again). */
  low: boolean
  timer?: NodeJS.Timeout
  sliceTimer?: NodeJS.Timeout
  stopped: 'deadline' | 'slice' | 'closed' | null
}

function workerFor(memoryMb: number): Worker {
  const resourceLimits = {maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 16}
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./render-worker.js', import.meta.url), {resourceLimits})
  // Under the TypeScript sources (tests), the thread loads the .ts worker through tsx's API.
  const api = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href
  const file = new URL('./render-worker.ts', import.meta.url).href
  const code = `import(${JSON.stringify(api)}).then(({tsImport}) => tsImport(${JSON.stringify(file)}, ${JSON.stringify(file)}))`
  return new Worker(code, {eval: true, resourceLimits})
}

export interface RenderPool {
  render(input: RenderInput, account: string): Promise<string>
  /** Refuses waiting renders (503), stops running ones (422) and the threads. */
  close(): Promise<void>
}

/**
 * CPU time a thread has used, ms (Linux: utime + stime of /proc/self/task/TID/stat, in ticks of
 * 10 ms), or null when it cannot be read. A render is judged by the CPU it used, not by its wall
 * time, so a quick render on a loaded machine does not make its account heavy.
 */
export function threadCpuMs(tid: number | undefined): number | null {
  if (tid === undefined) return null
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(fields[11]) + Number(fields[12])
    return Number.isFinite(ticks) ? ticks * 10 : null
  } catch {
    return null
  }
}

/**
 * Which accounts are light: those that finished a render within the slice and ran no render past
 * it in the last `heavyMs`. Everyone else (new accounts included) is heavy. Pure bookkeeping.
 */
export function createLoadBook(limits: Pick<RenderPoolLimits, 'heavyMs'>, now = Date.now) {
  const proven = new Set<string>()
  const heavyUntil = new Map<string, number>()
  const bound = () => {
    if (proven.size > 10_000) proven.clear()
    if (heavyUntil.size > 10_000) heavyUntil.clear()
  }
  return {
    isLight: (account: string) => proven.has(account) && (heavyUntil.get(account) ?? 0) <= now(),
    /** A render of the account finished within the slice. */
    quick(account: string) {
      proven.add(account)
      bound()
    },
    /** A render of the account ran past the slice. */
    slow(account: string) {
      heavyUntil.set(account, now() + limits.heavyMs)
      bound()
    },
  }
}

export function createRenderPool(overrides: Partial<RenderPoolLimits> = {}): RenderPool {
  const limits: RenderPoolLimits = {...DEFAULT_RENDER_POOL, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined))}
  /** `threads` for anyone, one more only light accounts may take. */
  const capacity = limits.threads + 1
  const lanes: Lane[] = []
  const queue: Job[] = []
  const book = createLoadBook(limits)
  let nextId = 1
  let closed = false
  /** Render time each account used lately (halved at each of its renders): the waiting render of the
   *  account that used least goes first, so slow renders of one account queue behind everyone else's. */
  const used = new Map<string, number>()
  const charge = (job: Job, started: number) => {
    used.set(job.account, (used.get(job.account) ?? 0) / 2 + (Date.now() - started))
    if (used.size > 10_000) used.clear()
  }
  /** What the lane's current render has cost so far: its thread's CPU time, else its wall time. */
  const cost = (lane: Lane) => {
    const cpu = threadCpuMs(lane.tid)
    return cpu === null ? Date.now() - lane.started : cpu - lane.cpuAtStart
  }

  const idle = () => lanes.filter((l) => !l.job)
  /** Threads free now or that may still be started. */
  const free = () => idle().length + capacity - lanes.length

  function spawn(): Lane {
    const lane: Lane = {worker: workerFor(limits.memoryMb), job: null, ready: false, started: 0, cpuAtStart: 0, light: false, low: false, stopped: null}
    lane.worker.unref()
    lane.worker.on('message', (reply: RenderReply) => {
      if ('ready' in reply) {
        lane.ready = true
        lane.tid = reply.tid
        return dispatch()
      }
      const job = lane.job
      if (!job || reply.id !== job.id) return
      clearTimeout(lane.timer)
      clearTimeout(lane.sliceTimer)
      charge(job, lane.started)
      if (cost(lane) <= limits.sliceMs) book.quick(job.account)
      else book.slow(job.account)
      lane.job = null
      lane.worker.unref()
      if ('text' in reply) job.resolve(reply.text)
      else if ('error' in reply) job.reject(new SvcError(reply.error.code as ErrorCode, reply.error.status, reply.error.message, reply.error.details))
      dispatch()
    })
    const gone = (error?: Error) => {
      const index = lanes.indexOf(lane)
      if (index < 0) return
      lanes.splice(index, 1)
      clearTimeout(lane.timer)
      clearTimeout(lane.sliceTimer)
      const job = lane.job
      lane.job = null
      if (job && lane.stopped === 'slice') {
        // Stopped to free the reserve: the render runs again from the start, as a heavy account's.
        queue.unshift(job)
      } else if (job) {
        charge(job, lane.started)
        book.slow(job.account)
        const outOfMemory = (error as {code?: string} | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY'
        job.reject(lane.stopped === 'closed' ? new SvcError('internal', 503, 'the server is shutting down') : validation({content: [lane.stopped === 'deadline'
          ? `cannot be rendered: render limit exceeded (stopped after ${limits.deadlineMs} ms)`
          : outOfMemory ? `cannot be rendered: memory limit exceeded (${limits.memoryMb} MB)` : 'cannot be rendered: the renderer stopped']}))
      }
      dispatch()
    }
    lane.worker.on('error', gone)
    lane.worker.on('exit', () => gone())
    lanes.push(lane)
    return lane
  }

  /** The waiting render to start next, or -1: its account holds no thread, and a heavy account
   *  neither takes the last free thread nor a thread beyond `threads` heavy ones. */
  function next(): number {
    const busy = new Set(lanes.flatMap((l) => (l.job ? [l.job.account] : [])))
    const heavyRunning = lanes.filter((l) => l.job && !(l.light && book.isLight(l.job.account))).length
    // A thread still loading does not count: a heavy render must leave a loaded one free.
    const heavyMayStart = heavyRunning < limits.threads && lanes.filter((l) => l.ready && !l.job).length >= 2
    let index = -1
    for (let i = 0; i < queue.length; i++) {
      const account = queue[i]!.account
      if (busy.has(account) || (!heavyMayStart && !book.isLight(account))) continue
      if (index < 0 || (used.get(account) ?? 0) < (used.get(queue[index]!.account) ?? 0)) index = i
    }
    return index
  }

  /** Heavy renders run below the server's event loop and light ones (Linux: a thread's own priority,
   *  set by its id; elsewhere that would lower the whole process, so nothing is set). */
  function lower(lane: Lane): void {
    if (lane.low || lane.tid === undefined) return
    lane.low = true
    try {
      setPriority(lane.tid, 10)
    } catch {}
  }

  function start(lane: Lane, job: Job): void {
    lane.job = job
    lane.started = Date.now()
    lane.cpuAtStart = threadCpuMs(lane.tid) ?? 0
    lane.light = book.isLight(job.account)
    if (!lane.light) lower(lane)
    lane.stopped = null
    lane.worker.ref()
    lane.timer = setTimeout(() => {
      lane.stopped = 'deadline'
      void lane.worker.terminate()
    }, limits.deadlineMs)
    // CPU time never runs ahead of wall time: the render is checked once the slice has passed, and
    // again when the CPU it may still use within the slice could have been used.
    const check = (wait: number) => {
      lane.sliceTimer = setTimeout(() => {
        if (lane.job !== job) return
        const spent = cost(lane)
        if (spent <= limits.sliceMs) return check(Math.max(10, limits.sliceMs - spent))
        book.slow(job.account)
        lower(lane)
        // A light account's render that overran while no thread is left free gives the reserve back.
        if (lane.light && free() === 0) {
          lane.stopped = 'slice'
          void lane.worker.terminate()
        }
        dispatch()
      }, wait)
    }
    check(limits.sliceMs)
    lane.worker.postMessage({id: job.id, input: job.input} satisfies RenderRequest)
  }

  function dispatch(): void {
    if (closed) return
    for (;;) {
      const index = next()
      if (index < 0) break
      // A light account's render on a thread still at the server's priority, a heavy one's on a lowered one.
      const light = book.isLight(queue[index]!.account)
      const ready = lanes.filter((l) => l.ready && !l.job)
      const lane = ready.find((l) => l.low !== light) ?? ready[0]
      if (!lane) break
      start(lane, queue.splice(index, 1)[0]!)
    }
    // Threads for the renders that wait, and one idle spare, started ahead of need (a thread takes
    // tens of milliseconds to load liquidjs; a quiet account's render should not wait for that).
    while (lanes.length < capacity && idle().length < Math.min(queue.length + 1, capacity)) spawn()
  }

  const pool: RenderPool = {
    render(input, account) {
      if (closed) return Promise.reject(new SvcError('internal', 503, 'the server is shutting down'))
      if (queue.filter((j) => j.account === account).length >= limits.queuePerAccount) {
        return Promise.reject(rateLimited(`too many prompt renders at once; at most ${limits.queuePerAccount} may wait per account`))
      }
      return new Promise((resolve, reject) => {
        queue.push({id: nextId++, account, input, resolve, reject})
        dispatch()
      })
    },
    async close() {
      closed = true
      for (const job of queue.splice(0)) job.reject(new SvcError('internal', 503, 'the server is shutting down'))
      await Promise.all(lanes.map((l) => {
        l.stopped = 'closed'
        return l.worker.terminate()
      }))
    },
  }
  return pool
}
