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
import {sseHeartbeat} from '../core/feeds/events.js'

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
  private chunks: string[] = []
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

  /** Queues one frame; false when the stream no longer takes any (ended, or just overflowed). */
  write(frame: string): boolean {
    if (!this.open) return false
    this.chunks.push(frame)
    this.bytes += frame.length
    if (this.bytes > (this.options.maxQueueBytes ?? 256 * 1024)) {
      this.chunks = [this.options.overflowFrame()]
      this.bytes = this.chunks[0]!.length
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
      const text = this.chunks.join('')
      this.chunks = []
      this.bytes = 0
      controller.enqueue(this.encoder.encode(text))
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
