/**
 * A Server-Sent Events client over a Backend (remote HTTP or the in-process app): follows a feed
 * (docs/realtime.md) and reconnects with `Last-Event-ID` when the stream ends or the network fails,
 * so no change is missed or seen twice. `svc db watch` is its user. The framing is parsed by
 * `eventsource-parser` (imported lazily: only `watch` loads it).
 */
import {SvcError} from '../core/errors.js'
import type {Backend} from './backend.js'
import {errorFromResponse} from './wire.js'

export interface FeedEvent {
  /** The journal bookmark (the SSE `id:`), or null for an event without one (`resync`). */
  id: string | null
  /** `create`, `update`, `delete` or `resync`. */
  event: string
  /** The JSON of `data:` (the text when it is not JSON). */
  data: unknown
}

export interface FollowOptions {
  /** Resume after this bookmark (as a reconnect does); null: from now. */
  lastEventId?: string | null
  onEvent(event: FeedEvent): void
  /** A line for the person watching: reconnects, resyncs (stderr). */
  onNote?(line: string): void
  /** The server answered the feed (each connection; `again` after the first). */
  onOpen?(again: boolean): void
  signal?: AbortSignal
  /** The first wait before a reconnect, ms (doubles after each failure, at most `maxDelayMs`). */
  delayMs?: number
  maxDelayMs?: number
}

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve) => {
  if (signal?.aborted) return resolve()
  const timer = setTimeout(resolve, ms)
  signal?.addEventListener('abort', () => {
    clearTimeout(timer)
    resolve()
  }, {once: true})
})

/** An answer that will not change on a retry: a 4xx other than 408 and 429. */
const final = (e: unknown) => e instanceof SvcError && e.status >= 400 && e.status < 500 && e.status !== 408 && e.status !== 429

/**
 * Follows `path` until `signal` aborts (resolves) or the server refuses it for good (a 4xx: throws
 * that error). After a `resync` the missed changes cannot be replayed: the feed continues from now.
 */
export async function followFeed(backend: Backend, path: string, options: FollowOptions): Promise<void> {
  const {createParser} = await import('eventsource-parser')
  const {signal} = options
  let last = options.lastEventId ?? null
  const base = options.delayMs ?? 1000
  const max = options.maxDelayMs ?? 30_000
  let delay = base
  let first = true
  while (!signal?.aborted) {
    let received = false
    try {
      const headers: Record<string, string> = {accept: 'text/event-stream'}
      if (last) headers['last-event-id'] = last
      const res = await backend.fetch(path, {headers, signal})
      if (!res.ok) throw await errorFromResponse(res)
      if (!res.body) throw new SvcError('network', 0, 'the feed answered without a body')
      options.onOpen?.(!first)
      if (!first) options.onNote?.(last ? `reconnected; resuming after ${last}` : 'reconnected')
      first = false
      delay = base
      let resync = false
      const parser = createParser({
        onEvent(e) {
          received = true
          let data: unknown = e.data
          try {
            data = JSON.parse(e.data)
          } catch {
            // not JSON: kept as text
          }
          const event = e.event ?? 'message'
          if (event === 'resync') {
            resync = true
            last = null
          } else if (e.id) last = e.id
          options.onEvent({id: e.id ?? null, event, data})
        },
        onRetry(ms) {
          if (ms > 0) delay = Math.min(ms, max)
        },
      })
      const reader = res.body.getReader()
      const decoder = new TextDecoder()
      // In-process (the embedded backend) the request's signal does not reach the body: cancel it here.
      const cancel = () => void reader.cancel().catch(() => {})
      signal?.addEventListener('abort', cancel, {once: true})
      try {
        for (;;) {
          const {done, value} = await reader.read()
          if (done) break
          parser.feed(decoder.decode(value, {stream: true}))
        }
      } finally {
        signal?.removeEventListener('abort', cancel)
        reader.releaseLock()
      }
      if (signal?.aborted) return
      options.onNote?.(resync ? 'the feed asked for a resync: changes from before it are not replayed; following from now' : 'the feed ended; reconnecting')
    } catch (error) {
      if (signal?.aborted) return
      if (final(error)) throw error
      options.onNote?.(`feed interrupted (${(error as Error).message}); reconnecting in ${Math.round(delay / 1000)} s`)
      await sleep(delay, signal)
      delay = Math.min(delay * 2, max)
      continue
    }
    // A stream that ended after events reconnects at once; one that carried nothing waits first.
    if (!received) {
      await sleep(delay, signal)
      delay = Math.min(delay * 2, max)
    }
  }
}
