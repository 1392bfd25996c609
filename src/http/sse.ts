/**
 * A Server-Sent Events answer (docs/realtime.md): `id:`/`event:`/`data:` frames (src/core/feeds/
 * events.ts), heartbeat comments, and a bounded queue per connection. Written for both transports:
 * - a real connection (@hono/node-server, `c.env.outgoing`): `eventStreams()`, the app's outermost
 *   middleware, hands the stream the Node response once every middleware has set its headers; the
 *   frames are then written to it as they come (one `write` per frame, nothing in between), and
 *   queued only while the socket is behind (node's buffer full, until `drain`);
 * - `app.request` (in-process): the body is a pull-based ReadableStream, read as the caller reads.
 *
 * A client that reads too slowly is never buffered without bound: once its unread frames pass
 * `maxQueueBytes` they are dropped, it is sent one `resync` frame and the stream ends (and is cut
 * after a grace period if even that is not read). Client aborts and server stops end it cleanly: the
 * `onClose` callback runs once either way (the subscription and the quota slot are given back).
 *
 * An idle stream holds no timer of its own: heartbeats (and the routes' re-checks) run from one
 * timer per period for every stream (`every`).
 */
import type {ServerResponse} from 'node:http'
import type {MiddlewareHandler} from 'hono'
import {RESPONSE_ALREADY_SENT} from '@hono/node-server/utils/response'
import {RESYNC_REASONS, sseFrame, sseHeartbeat} from '../core/feeds/events.js'
import {bookmarkOf} from '../core/journal/types.js'
import {rateLimited} from '../core/errors.js'
import type {Feeds, Subscriber, Subscription} from '../services/feeds/index.js'
import type {StoredEntry} from '../store/journal/repo.js'
import type {AppEnv} from './env.js'

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

const encoder = new TextEncoder()

/** Each period is cut in this many slices, one run per slice's turn: 10,000 heartbeats are not written in one burst. */
const SLICES = 16

interface Ticker {
  timer: NodeJS.Timeout
  slices: Set<() => void>[]
  /** The slice the next `every` joins (round robin), and the slice the next tick runs. */
  join: number
  turn: number
  size: number
}

/** One interval timer per period, shared by everything that runs at that period. */
const tickers = new Map<number, Ticker>()

/**
 * Runs `run` every `ms` (the first time within `ms`) until the returned function is called. Every
 * caller of the same period shares one timer (unref'd: it never holds the process open), so 10,000
 * open streams hold one heartbeat timer, not 10,000; the callers are spread over the period in
 * `SLICES` turns. A `run` that throws does not stop the others.
 */
export function every(ms: number, run: () => void): () => void {
  let ticker = tickers.get(ms)
  if (!ticker) {
    const slices = Array.from({length: SLICES}, () => new Set<() => void>())
    const own: Ticker = {slices, join: 0, turn: 0, size: 0, timer: undefined as unknown as NodeJS.Timeout}
    own.timer = setInterval(() => {
      const slice = own.slices[own.turn]!
      own.turn = (own.turn + 1) % SLICES
      for (const r of slice) {
        try {
          r()
        } catch {
          // Its own failure (a closed stream): the others still run.
        }
      }
    }, Math.max(1, ms / SLICES))
    own.timer.unref?.()
    tickers.set(ms, (ticker = own))
  }
  const own = ticker
  const slice = own.slices[own.join]!
  own.join = (own.join + 1) % SLICES
  slice.add(run)
  own.size++
  return () => {
    if (!slice.delete(run)) return
    if (--own.size === 0) {
      clearInterval(own.timer)
      if (tickers.get(ms) === own) tickers.delete(ms)
    }
  }
}

/** The streams whose body is still to be sent, by their body (what a Response carries through every middleware). */
const streamsByBody = new WeakMap<ReadableStream<Uint8Array>, SseStream>()

export class SseStream {
  /** Frames not yet handed to the connection (before it is attached, or while the socket is behind). */
  private chunks: (string | Uint8Array)[] = []
  private bytes = 0
  private wake: (() => void) | undefined
  private ending = false
  private done = false
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined
  private readable: ReadableStream<Uint8Array> | undefined
  /** The Node response the frames are written to (a real connection), once attached. */
  private out: ServerResponse | undefined
  /** The last write to `out` filled node's buffer: frames wait in `chunks` until `drain`. */
  private behind = false
  private stopHeartbeat: (() => void) | undefined
  private cut: NodeJS.Timeout | undefined

  constructor(private readonly options: SseOptions) {
    this.chunks.push(`retry: ${options.retryMs ?? 2000}\n: connected\n\n`)
    this.stopHeartbeat = every(options.heartbeatMs ?? 15_000, () => this.write(sseHeartbeat(options.heartbeatId?.())))
  }

  /** The answer's body for `app.request`; on a real connection it is never read (the stream is attached to the Node response instead). */
  get body(): ReadableStream<Uint8Array> {
    if (!this.readable) {
      this.readable = new ReadableStream<Uint8Array>({
        start: (controller) => void (this.controller = controller),
        pull: (controller) => this.pull(controller),
        cancel: () => this.finish(),
      }, {highWaterMark: 0})
      streamsByBody.set(this.readable, this)
    }
    return this.readable
  }

  /** Whether the stream still takes frames. */
  get open(): boolean {
    return !this.ending && !this.done
  }

  /** Bytes of frames not yet read by the client (held here, not counting the socket's own buffer). */
  get queuedBytes(): number {
    return this.bytes
  }

  /** Queues one frame (text, or its UTF-8 bytes: one encoding shared by every stream of an event); false when the stream no longer takes any (ended, or just overflowed). */
  write(frame: string | Uint8Array): boolean {
    if (!this.open) return false
    if (this.out && !this.behind) {
      this.behind = !this.out.write(frame)
      return true
    }
    this.chunks.push(frame)
    this.bytes += frame.length
    if (this.bytes > (this.options.maxQueueBytes ?? 256 * 1024)) {
      const last = this.options.overflowFrame()
      this.chunks = [last]
      this.bytes = last.length
      this.closing()
      return false
    }
    this.wake?.()
    return true
  }

  /** Ends the stream once what is queued (and `frame`) has been read. */
  end(frame?: string): void {
    if (!this.open) return
    if (frame) this.chunks.push(frame)
    this.closing()
  }

  /**
   * Sends the stream on a Node response (a real connection): the head, then every frame as it comes.
   * False when the body was already being read (it stays the answer's body).
   */
  attach(out: ServerResponse, status: number, headers: Record<string, string | string[]>): boolean {
    if (this.readable?.locked) return false
    // The web stream is never read: let it go.
    if (this.readable) streamsByBody.delete(this.readable)
    this.readable = undefined
    this.controller = undefined
    this.out = out
    out.on('drain', () => this.flush())
    // An error of the response (never left unhandled: it would end the process) ends the stream as a close does.
    const gone = () => this.finish()
    out.on('close', gone)
    out.on('error', gone)
    out.writeHead(status, headers)
    if (this.done || out.destroyed) {
      out.destroy()
      this.finish()
      return true
    }
    this.flush()
    return true
  }

  /** Writes what waited to the Node response (at attach, and on `drain`), and ends it once all is written. */
  private flush(): void {
    const out = this.out!
    if (this.done || out.writableEnded) return
    this.behind = false
    if (this.chunks.length > 0) {
      const chunks = this.chunks
      this.chunks = []
      this.bytes = 0
      if (chunks.length > 1) out.cork()
      for (const chunk of chunks) this.behind = !out.write(chunk)
      if (chunks.length > 1) out.uncork()
    }
    if (this.ending && !this.behind) out.end()
  }

  /** No more frames: what is queued still goes out, within the grace period. */
  private closing(): void {
    this.ending = true
    this.cut = setTimeout(() => this.abort(), OVERFLOW_GRACE_MS)
    this.cut.unref?.()
    this.release()
    if (this.out) {
      if (!this.behind) this.flush()
    } else this.wake?.()
  }

  private async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    while (this.chunks.length === 0 && !this.ending && !this.done) await new Promise<void>((resolve) => (this.wake = resolve))
    this.wake = undefined
    if (this.done) return
    if (this.chunks.length > 0) {
      const parts = this.chunks.map((c) => (typeof c === 'string' ? encoder.encode(c) : c))
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
    if (this.out) this.out.destroy()
    else {
      try {
        this.controller?.error(new Error('the client does not read its event stream'))
      } catch {
        // Already closed.
      }
    }
    this.finish()
  }

  /** Stops the heartbeat and tells the owner, once (the owner's slot and subscription go at the first sign of the end). */
  private release(): void {
    this.stopHeartbeat?.()
    this.stopHeartbeat = undefined
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

/**
 * The app's outermost middleware: an event stream answered on a real connection is written straight
 * to the Node response (`SseStream.attach`) with the status and every header the route and the
 * middlewares gave the answer (request id, security headers, cookies), and @hono/node-server is told
 * the answer was sent. Other answers, and `app.request`'s (no Node response), pass unchanged.
 */
export function eventStreams(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next()
    const out = c.env?.outgoing
    if (!out || out.headersSent || !c.res.headers.get('content-type')?.startsWith('text/event-stream')) return
    const body = c.res.body
    const stream = body ? streamsByBody.get(body) : undefined
    if (!stream) return
    const headers: Record<string, string | string[]> = {}
    for (const [name, value] of c.res.headers) if (name !== 'set-cookie') headers[name] = value
    const cookies = c.res.headers.getSetCookie()
    if (cookies.length > 0) headers['set-cookie'] = cookies
    if (!stream.attach(out, c.res.status, headers)) return
    // A HEAD has no body to carry frames: its answer ends at the headers (the stream with it).
    if (c.req.method === 'HEAD') stream.end()
    // Replaced, not merged (the setter would copy the stream's headers onto it): the answer is out.
    c.res = undefined
    c.res = alreadySent()
  }
}

/** @hono/node-server's "written already" answer, read once so that it is never taken for a cached answer to write. */
function alreadySent(): Response {
  void RESPONSE_ALREADY_SENT.body
  return RESPONSE_ALREADY_SENT
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
  let stopRecheck: (() => void) | undefined
  let subscription: Subscription | undefined
  const at = () => (subscription && subscription.position() > 0 ? bookmarkOf(subscription.position()) : undefined)
  const stream = new SseStream({
    heartbeatMs: feeds.heartbeatMs,
    maxQueueBytes: spec.queueBytes,
    overflowFrame: () => sseFrame({event: 'resync', id: at(), data: {reason: RESYNC_REASONS.slow}}),
    heartbeatId: at,
    onClose: () => {
      stopRecheck?.()
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
  if (spec.recheck && stream.open) {
    const check = spec.recheck
    stopRecheck = every(feeds.recheckMs, () => void check().then((ok) => ok || stream.end(), () => undefined))
  }
  // Answered once the feed has its place in the journal: a client that opens the feed and then reads
  // its data misses no change made after the answer (the hub may still have been starting).
  await subscription.ready
  return sseResponse(stream)
}
