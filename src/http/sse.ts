/**
 * A Server-Sent Events answer (docs/realtime.md): `id:`/`event:`/`data:` frames (src/core/feeds/
 * events.ts), heartbeat comments, and a bounded queue per connection. Written for both transports:
 * the body is a pull-based ReadableStream, read by @hono/node-server as the socket drains (it waits
 * for `drain`) and by `app.request`'s caller as it reads.
 *
 * A client that reads too slowly is never buffered without bound: once its unread frames pass
 * `maxQueueBytes` they are dropped, it is sent one `resync` frame and the stream ends (and is cut
 * after a grace period if even that is not read). Client aborts and server stops end it cleanly: the
 * `onClose` callback runs once either way (the subscription and the quota slot are given back).
 */
import {RESYNC_REASONS, sseFrame, sseHeartbeat} from '../core/feeds/events.js'
import {bookmarkOf} from '../core/journal/types.js'
import {rateLimited} from '../core/errors.js'
import type {Feeds, Subscriber, Subscription} from '../services/feeds/index.js'
import type {StoredEntry} from '../store/journal/repo.js'

export interface SseOptions {
  /** Between two heartbeats, ms (default 15,000). */
  heartbeatMs?: number
  /** Bytes of frames a connection may hold unread (default 256 KiB). */
  maxQueueBytes?: number
  /** Sent when the queue overflows, before the stream ends (a `resync` frame). */
  overflowFrame: () => string
  /** The `id` a heartbeat carries (the client's place), or undefined. */
  heartbeatId?: () => string | undefined
  /** Runs once when the stream ends, whoever ends it. */
  onClose?: () => void
  /** The `retry:` a client waits before reconnecting, ms (default 2000). */
  retryMs?: number
}

/** After an overflow or an end, how long the last frames have to be read before the connection is cut. */
const OVERFLOW_GRACE_MS = 5000

export class SseStream {
  private chunks: (string | Uint8Array)[] = []
  private bytes = 0
  private wake: (() => void) | undefined
  private ending = false
  private done = false
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined
  private readonly heartbeat: NodeJS.Timeout
  private cut: NodeJS.Timeout | undefined
  private readonly encoder = new TextEncoder()
  readonly body: ReadableStream<Uint8Array>

  constructor(private readonly options: SseOptions) {
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => void (this.controller = controller),
      pull: (controller) => this.pull(controller),
      cancel: () => this.finish(),
    }, {highWaterMark: 0})
    this.chunks.push(`retry: ${options.retryMs ?? 2000}\n: connected\n\n`)
    this.heartbeat = setInterval(() => this.write(sseHeartbeat(options.heartbeatId?.())), options.heartbeatMs ?? 15_000)
    this.heartbeat.unref?.()
  }

  /** Whether the stream still takes frames. */
  get open(): boolean {
    return !this.ending && !this.done
  }

  /** Bytes of frames not yet read by the client. */
  get queuedBytes(): number {
    return this.bytes
  }

  /** Queues one frame (text, or its UTF-8 bytes: one encoding shared by every stream of an event); false when the stream no longer takes any (ended, or just overflowed). */
  write(frame: string | Uint8Array): boolean {
    if (!this.open) return false
    this.chunks.push(frame)
    this.bytes += frame.length
    if (this.bytes > (this.options.maxQueueBytes ?? 256 * 1024)) {
      const last = this.options.overflowFrame()
      this.chunks = [last]
      this.bytes = last.length
      this.ending = true
      this.cut = setTimeout(() => this.abort(), OVERFLOW_GRACE_MS)
      this.cut.unref?.()
      this.release()
      this.wake?.()
      return false
    }
    this.wake?.()
    return true
  }

  /** Ends the stream once what is queued (and `frame`) has been read. */
  end(frame?: string): void {
    if (!this.open) return
    if (frame) this.chunks.push(frame)
    this.ending = true
    this.cut = setTimeout(() => this.abort(), OVERFLOW_GRACE_MS)
    this.cut.unref?.()
    this.release()
    this.wake?.()
  }

  private async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    while (this.chunks.length === 0 && !this.ending && !this.done) await new Promise<void>((resolve) => (this.wake = resolve))
    this.wake = undefined
    if (this.done) return
    if (this.chunks.length > 0) {
      const parts = this.chunks.map((c) => (typeof c === 'string' ? this.encoder.encode(c) : c))
      this.chunks = []
      this.bytes = 0
      controller.enqueue(parts.length === 1 ? parts[0]! : Buffer.concat(parts))
      return
    }
    controller.close()
    this.finish()
  }

  /** Cuts the connection (a client that does not read even the last frames). */
  private abort(): void {
    if (this.done) return
    try {
      this.controller?.error(new Error('the client does not read its event stream'))
    } catch {
      // Already closed.
    }
    this.finish()
  }

  /** Stops the heartbeat and tells the owner, once (the owner's slot and subscription go at the first sign of the end). */
  private release(): void {
    clearInterval(this.heartbeat)
    const onClose = this.options.onClose
    this.options.onClose = undefined
    onClose?.()
  }

  private finish(): void {
    if (this.done) return
    this.done = true
    this.ending = true
    this.chunks = []
    this.bytes = 0
    clearTimeout(this.cut)
    this.release()
    this.wake?.()
  }
}

/** The headers of an event stream: never cached or transformed, never buffered by a proxy. */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store, no-transform',
  'x-accel-buffering': 'no',
} as const

/** The answer of a stream. */
export function sseResponse(stream: SseStream, headers: Record<string, string> = {}): Response {
  return new Response(stream.body, {status: 200, headers: {...SSE_HEADERS, ...headers}})
}

/** What `streamFeed` needs to know of a feed (private: src/http/routes/changes.ts; public: the `subscribe` method). */
export interface FeedStreamSpec {
  /** The account whose journal entries the feed may carry (the hub hands it no other). */
  accountId: number
  /** Quota slots taken while the stream is open: `[key, limit]` (0: no limit), all or none (`feeds.connections`). */
  slots: [key: string, limit: number][]
  /** The 429's message when the slot of `key` is full. */
  full(key: string): string
  /** Where the client resumes (src/core/feeds/events.ts resumePoint). */
  resume: number | null | 'invalid'
  /** Bytes of events the client may leave unread before it is sent resync and dropped (quota feed_queue_bytes). */
  queueBytes: number
  /** Whether an entry of the account is an event of this feed (in memory: no query). */
  match(entry: StoredEntry): boolean
  /** The entry as SSE bytes (shared by every feed it reaches: cache it per entry). */
  frame(entry: StoredEntry): string | Uint8Array
  /** Whether the feed ends at this entry (its db deleted). */
  ends?(entry: StoredEntry): boolean
  /** Called every `feeds.recheckMs`: false ends the stream (the caller may no longer read it). */
  recheck?(): Promise<boolean>
}

/**
 * A feed as an SSE answer: takes its quota slots (429 with `Retry-After: 5` when one is full),
 * subscribes to the instance's hub, sends `resync` for a bookmark it cannot resume from (or a
 * malformed one), heartbeats with the feed's position as `id:`, and gives everything back when the
 * stream ends (client abort, slow client, server stop, a failed re-check).
 */
export async function streamFeed(feeds: Feeds, spec: FeedStreamSpec): Promise<Response> {
  const slot = feeds.connections.acquire(spec.slots)
  if ('full' in slot) throw rateLimited(spec.full(slot.full), 5)
  let recheck: NodeJS.Timeout | undefined
  let subscription: Subscription | undefined
  const at = () => (subscription && subscription.position() > 0 ? bookmarkOf(subscription.position()) : undefined)
  const stream = new SseStream({
    heartbeatMs: feeds.heartbeatMs,
    maxQueueBytes: spec.queueBytes,
    overflowFrame: () => sseFrame({event: 'resync', id: at(), data: {reason: RESYNC_REASONS.slow}}),
    heartbeatId: at,
    onClose: () => {
      clearInterval(recheck)
      subscription?.close()
      slot.release()
    },
  })
  if (spec.resume === 'invalid') stream.write(sseFrame({event: 'resync', data: {reason: RESYNC_REASONS.invalid}}))
  const subscriber: Subscriber = {
    accountId: spec.accountId,
    after: spec.resume === 'invalid' ? null : spec.resume,
    match: (e) => {
      if (spec.ends?.(e)) {
        queueMicrotask(() => stream.end())
        return false
      }
      return spec.match(e)
    },
    deliver: (e) => void stream.write(spec.frame(e)),
    resync: (reason, head) => void stream.write(sseFrame({event: 'resync', id: head > 0 ? bookmarkOf(head) : undefined, data: {reason}})),
    ended: () => stream.end(),
  }
  subscription = feeds.hub.subscribe(subscriber)
  if (spec.recheck) {
    const check = spec.recheck
    recheck = setInterval(() => {
      void check().then((ok) => ok || stream.end(), () => undefined)
    }, feeds.recheckMs)
    recheck.unref?.()
  }
  // Answered once the feed has its place in the journal: a client that opens the feed and then reads
  // its data misses no change made after the answer (the hub may still have been starting).
  await subscription.ready
  return sseResponse(stream)
}
