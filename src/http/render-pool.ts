/**
 * Prompt renders of the server run in a small pool of worker threads, not on the event loop:
 * - a hard deadline that holds inside a single tag or filter: a render still running after
 *   `deadlineMs` has its thread terminated (V8 stops it wherever it is) and answers 422;
 * - a heap limit per thread (`resourceLimits`): running out of it is a 422 too;
 * - fairness: one account renders on at most one thread at a time and may queue at most
 *   `queuePerAccount` renders (then 429); among waiting renders, the account that used the least
 *   render time lately goes first, so one account's slow renders cannot starve another's.
 * Threads start on the first render, stay warm, and never hold the process open while idle.
 */
import {createRequire} from 'node:module'
import {pathToFileURL} from 'node:url'
import {Worker} from 'node:worker_threads'
import {rateLimited, SvcError, validation, type ErrorCode} from '../core/errors.js'
import type {RenderInput} from '../core/prompts/render.js'
import type {RenderReply, RenderRequest} from './render-worker.js'

export interface RenderPoolLimits {
  threads: number
  /** Milliseconds from the start of a render to its thread being stopped. */
  deadlineMs: number
  /** Heap of a render thread, MB. */
  memoryMb: number
  /** Renders one account may have waiting at once. */
  queuePerAccount: number
}

export const DEFAULT_RENDER_POOL: RenderPoolLimits = {threads: 2, deadlineMs: 2_000, memoryMb: 128, queuePerAccount: 8}

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
  timer?: NodeJS.Timeout
  stopped: 'deadline' | null
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
  close(): Promise<void>
}

export function createRenderPool(overrides: Partial<RenderPoolLimits> = {}): RenderPool {
  const limits = {...DEFAULT_RENDER_POOL, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined))}
  const lanes: Lane[] = []
  const queue: Job[] = []
  let nextId = 1
  /** Render time each account used lately (halved at each of its renders): the waiting render of the
   *  account that used least goes first, so slow renders of one account queue behind everyone else's. */
  const used = new Map<string, number>()
  const charge = (job: Job, started: number) => {
    used.set(job.account, (used.get(job.account) ?? 0) / 2 + (Date.now() - started))
    if (used.size > 10_000) used.clear()
  }

  const busyAccounts = () => new Set(lanes.flatMap((l) => (l.job ? [l.job.account] : [])))

  function spawn(): Lane {
    const lane: Lane = {worker: workerFor(limits.memoryMb), job: null, ready: false, started: 0, stopped: null}
    lane.worker.unref()
    lane.worker.on('message', (reply: RenderReply) => {
      if ('ready' in reply) {
        lane.ready = true
        return dispatch()
      }
      const job = lane.job
      if (!job || reply.id !== job.id) return
      clearTimeout(lane.timer)
      charge(job, lane.started)
      lane.job = null
      lane.worker.unref()
      if ('text' in reply) job.resolve(reply.text)
      else if ('error' in reply) job.reject(new SvcError(reply.error.code as ErrorCode, reply.error.status, reply.error.message, reply.error.details))
      dispatch()
    })
    const gone = (error?: Error) => {
      const index = lanes.indexOf(lane)
      if (index >= 0) lanes.splice(index, 1)
      clearTimeout(lane.timer)
      const job = lane.job
      lane.job = null
      if (job) {
        charge(job, lane.started)
        const outOfMemory = (error as {code?: string} | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY'
        job.reject(validation({content: [lane.stopped === 'deadline'
          ? `cannot be rendered: render limit exceeded (stopped after ${limits.deadlineMs} ms)`
          : outOfMemory ? `cannot be rendered: memory limit exceeded (${limits.memoryMb} MB)` : 'cannot be rendered: the renderer stopped']}))
      }
      // Keep the pool warm: a thread stopped at its deadline is replaced at once.
      if (job && lanes.length < limits.threads) spawn()
      dispatch()
    }
    lane.worker.on('error', gone)
    lane.worker.on('exit', () => gone())
    lanes.push(lane)
    return lane
  }

  function dispatch(): void {
    for (;;) {
      const busy = busyAccounts()
      let index = -1
      for (let i = 0; i < queue.length; i++) {
        const account = queue[i]!.account
        if (busy.has(account)) continue
        if (index < 0 || (used.get(account) ?? 0) < (used.get(queue[index]!.account) ?? 0)) index = i
      }
      if (index < 0) return
      if (lanes.length < limits.threads && !lanes.some((l) => !l.ready || !l.job)) spawn()
      const lane = lanes.find((l) => l.ready && !l.job)
      if (!lane) return
      const job = queue.splice(index, 1)[0]!
      lane.job = job
      lane.started = Date.now()
      lane.stopped = null
      lane.worker.ref()
      lane.timer = setTimeout(() => {
        lane.stopped = 'deadline'
        void lane.worker.terminate()
      }, limits.deadlineMs)
      lane.worker.postMessage({id: job.id, input: job.input} satisfies RenderRequest)
    }
  }

  return {
    render(input, account) {
      if (queue.filter((j) => j.account === account).length >= limits.queuePerAccount) {
        return Promise.reject(rateLimited(`too many prompt renders at once; at most ${limits.queuePerAccount} may wait per account`))
      }
      return new Promise((resolve, reject) => {
        queue.push({id: nextId++, account, input, resolve, reject})
        dispatch()
      })
    },
    async close() {
      for (const job of queue.splice(0)) job.reject(new SvcError('internal', 503, 'the server is shutting down'))
      await Promise.all(lanes.map((l) => l.worker.terminate()))
    },
  }
}
