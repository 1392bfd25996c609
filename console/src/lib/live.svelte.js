// @ts-check
// A live feed of the console (docs/console.md "Live updates"): one Server-Sent Events stream of the
// API (decisions.md "Live feeds": a db's changes, or the account's journal entries), read through
// the typed client's backend (lib/client.js `stream`, the session cookie). Each event's `id:` (a
// journal bookmark) is kept; when the stream ends or the network fails it reconnects after a
// growing pause (1 s doubling to 30 s, or the server's `retry:`), sending Last-Event-ID, so every
// change made meanwhile still arrives, once and in order — or a `resync` event says the gap is
// too old and the screen reloads. A screen opens its feed in an `$effect` and the effect's cleanup
// closes it: leaving the screen closes the connection.
//
//   const feed = new Feed((type, data) => …)
//   $effect(() => feed.open('watchDbChanges', {params: {db_id}, query: {table_name}}))
import {untrack} from 'svelte'
import {OPERATIONS} from '../../../src/sdk.ts'
import {stream} from './client.js'
import {sseParser} from './sse.js'

/** @typedef {import('../../../src/sdk.ts').OperationId} OperationId */
/** @typedef {'off' | 'connecting' | 'live' | 'retrying' | 'closed'} FeedState */
/** @typedef {(type: string, data: any, id: string) => void} FeedHandler */

const FIRST_PAUSE = 1000
const LONGEST_PAUSE = 30_000

/**
 * The operation of a feed route (`GET path`), or undefined when this server's API has none (the
 * screen then works as before, without live updates).
 * @param {string} path the route as the operation table writes it: `/svc/dbs/{db_id}/changes`
 * @returns {OperationId | undefined}
 */
export function feedOperation(path) {
  return /** @type {OperationId | undefined} */ (Object.entries(OPERATIONS).find(([, o]) => o.method === 'get' && /** @type {string} */ (o.path) === path)?.[0])
}

/** The pause before reconnect attempt `attempt` (0-based): the server's `retry:` or 1 s, doubled each time, at most 30 s, with ±20 % jitter. */
export function pauseBefore(attempt, retry = FIRST_PAUSE) {
  const base = Math.min(LONGEST_PAUSE, retry * 2 ** Math.min(attempt, 10))
  return Math.round(base * (0.8 + Math.random() * 0.4))
}

/** Whether an error opening a feed is worth another attempt: the network, a quota (429), the server's trouble (5xx). */
export const retryable = (/** @type {any} */ error) => !error?.status || error.status === 408 || error.status === 429 || error.status >= 500

export class Feed {
  /** @type {FeedState} what the screen can show: off (no feed here), connecting, live, retrying (after a failure), closed */
  state = $state(/** @type {FeedState} */ ('closed'))
  /** @type {string} why the feed is off or retrying (the API's message) */
  problem = $state('')
  /** the last event's id (a journal bookmark), sent as Last-Event-ID when reconnecting */
  lastEventId = ''

  /**
   * @param {FeedHandler} handler each event: its type (`create`, `update`, `delete`, `resync`, …), its data (JSON parsed), its id
   * @param {(resumed: boolean) => void} [onOpen] each time the stream opens: `resumed` when it went on from a Last-Event-ID;
   *   otherwise what changed between the screen's read and this moment was not sent, and the screen reads again
   */
  constructor(handler, onOpen) {
    this.handler = handler
    this.onOpen = onOpen
  }

  /**
   * Opens the feed of operation `op` (a no-op answering a no-op when `op` is undefined: no such
   * route on this server). Answers the function that closes it (an `$effect`'s cleanup).
   * @template {OperationId} K
   * @param {K | undefined} op
   * @param {import('../../../src/sdk.ts').CallInput<K>} input
   * @returns {() => void}
   */
  open(op, input) {
    // Called in an $effect: what open reads of this feed's state must not make the effect depend on it.
    return untrack(() => this.#open(op, input))
  }

  /**
   * @template {OperationId} K
   * @param {K | undefined} op
   * @param {import('../../../src/sdk.ts').CallInput<K>} input
   * @returns {() => void}
   */
  #open(op, input) {
    if (!op) {
      this.state = 'off'
      return () => {}
    }
    let closed = false
    /** @type {ReadableStreamDefaultReader<string> | null} */
    let reader = null
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer
    let attempt = 0
    let retry = FIRST_PAUSE
    this.lastEventId = ''
    const parser = sseParser({
      onEvent: (event) => {
        attempt = 0
        let data = null
        try {
          data = event.data ? JSON.parse(event.data) : null
        } catch {
          data = event.data
        }
        if (!closed) this.handler(event.type, data, event.id)
      },
      onId: (id) => (this.lastEventId = id),
      onRetry: (ms) => (retry = Math.max(250, ms)),
      onComment: () => (attempt = 0),
    })
    const again = () => {
      if (closed) return
      this.state = 'retrying'
      timer = setTimeout(connect, pauseBefore(attempt++, retry))
    }
    const connect = async () => {
      if (closed) return
      if (this.state !== 'retrying') this.state = 'connecting'
      try {
        const resumeFrom = this.lastEventId
        const res = await stream(op, input, resumeFrom || undefined)
        if (closed) {
          res.body?.cancel().catch(() => {})
          return
        }
        if (!res.body) throw new Error('the server answered no stream')
        this.state = 'live'
        this.problem = ''
        parser.reset()
        this.onOpen?.(Boolean(resumeFrom))
        reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
        for (;;) {
          const {done, value} = await reader.read()
          if (done || closed) break
          parser.feed(value)
        }
        reader = null
        again()
      } catch (e) {
        reader = null
        if (closed) return
        this.problem = e?.message ?? String(e)
        if (e?.status === 401 || !retryable(e)) this.state = 'off'
        else again()
      }
    }
    connect()
    return () => {
      closed = true
      clearTimeout(timer)
      reader?.cancel().catch(() => {})
      this.state = 'closed'
    }
  }
}
