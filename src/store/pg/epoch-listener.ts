/**
 * The cache epoch pushed to this instance (migration 91): every bump of `cache_epoch` notifies
 * `svc_cache_epoch` with the new value, and one connection of this instance LISTENs. While it
 * listens, a read cache checks its entries against the epoch held here, with no query of its own:
 * a read is one round trip. The held value is trusted only
 * - after a query read it while listening (a notification alone is no baseline);
 * - until this instance writes (its own change is seen at once: the next read queries again);
 * - for TRUST_MS after that query, so a listening connection that stalls without an error delays
 *   another instance's change by at most that long (a lost connection stops the trust at once).
 * Otherwise the epoch is queried as before (PgDb.cacheEpoch). The connection reconnects on its own.
 *
 * The same connection LISTENs to `svc_journal` (migration 76: each committed journal entry's
 * bookmark) for the live feeds (src/store/journal/signal.ts): every notification, and every time
 * listening starts (what committed while it did not listen was never told), signals the journal's readers.
 */
import pg from 'pg'
import {JOURNAL_CHANNEL, type JournalSignal} from '../journal/signal.js'

export const EPOCH_CHANNEL = 'svc_cache_epoch'
/** How long a value confirmed by a query is trusted with notifications alone. */
const TRUST_MS = 250
const RECONNECT_MS = 1000

export class EpochListener {
  private client: pg.Client | undefined
  private listening = false
  private closed = false
  private timer: NodeJS.Timeout | undefined
  /** Bumped when listening starts again: a query begun before confirms nothing. */
  private generation = 0
  /** Bumped by every completed write of this instance: a query begun before confirms nothing. */
  private writes = 0
  private known: number | undefined
  private confirmedAt = 0

  constructor(private readonly connectionString: string, private readonly log?: (line: string) => void, private readonly journal?: JournalSignal) {
    void this.connect()
  }

  /** The epoch, when it can be trusted without a query. */
  current(): number | undefined {
    if (!this.listening || this.known === undefined || performance.now() - this.confirmedAt > TRUST_MS) return undefined
    return this.known
  }

  /** Taken before a query of the epoch; `confirm` with it once the value is back. */
  mark(): {generation: number; writes: number} {
    return {generation: this.listening ? this.generation : -1, writes: this.writes}
  }

  confirm(value: number, at: {generation: number; writes: number}): void {
    if (!this.listening || at.generation !== this.generation || at.writes !== this.writes) return
    this.known = Math.max(this.known ?? value, value)
    this.confirmedAt = performance.now()
  }

  /** A write of this instance completed: the held value needs a query again. */
  wrote(): void {
    this.writes++
    this.confirmedAt = 0
  }

  private async connect(): Promise<void> {
    if (this.closed) return
    const client = new pg.Client({connectionString: this.connectionString, keepAlive: true})
    client.on('notification', (message) => {
      const value = Number(message.payload)
      if (message.channel === EPOCH_CHANNEL && Number.isSafeInteger(value) && this.known !== undefined) this.known = Math.max(this.known, value)
      if (message.channel === JOURNAL_CHANNEL) this.journal?.emit(Number.isSafeInteger(value) ? value : undefined)
    })
    client.on('error', () => this.lost(client))
    client.on('end', () => this.lost(client))
    try {
      await client.connect()
      await client.query(`LISTEN ${EPOCH_CHANNEL}`)
      await client.query(`LISTEN ${JOURNAL_CHANNEL}`)
      if (this.closed) return void client.end().catch(() => undefined)
      this.client = client
      this.generation++
      this.known = undefined
      this.listening = true
      this.journal?.emit()
    } catch {
      this.lost(client)
    }
  }

  private lost(client: pg.Client): void {
    if (this.client && this.client !== client) return
    if (this.listening) this.log?.('cache epoch notifications lost: reading the epoch per request until they are back')
    this.listening = false
    this.client = undefined
    client.removeAllListeners('end')
    client.on('error', () => undefined)
    client.end().catch(() => undefined)
    if (!this.closed && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined
        void this.connect()
      }, RECONNECT_MS)
      this.timer.unref()
    }
  }

  async close(): Promise<void> {
    this.closed = true
    this.listening = false
    clearTimeout(this.timer)
    const client = this.client
    this.client = undefined
    await client?.end().catch(() => undefined)
  }
}
