/**
 * The live feeds' hub (docs/realtime.md "Model"): ONE reader of the journal per instance. It reads
 * the entries committed after its position once, keeps the newest in a ring, and hands each to the
 * subscriptions of its account in memory — never a query per subscriber per event. It is woken by
 * the store's journal signal (SQLite: after a commit in this process; PostgreSQL: LISTEN/NOTIFY on
 * `svc_journal`, which every instance's commit sends, carrying the bookmark only) and by a slow
 * safety poll (a notification lost with its connection, a write by another process on the SQLite
 * file such as the CLI's).
 *
 * Order and exactly once: the journal's `pos` is the order entries commit in (src/store/journal/
 * writer.ts), so reading `pos > head` in order never skips an entry that commits later with a
 * smaller number. A subscription resuming after bookmark N is replayed from the ring when the ring
 * reaches back to N, else from the journal (its own reads, until it has caught up), then joins the
 * live set; every subscription keeps the last bookmark it was given and takes only entries past it.
 *
 * A bookmark the journal no longer covers (its entry pruned, or older than the retention) gets
 * `resync(reason)` instead of a silent gap, and the subscription goes on from the newest entry.
 */
import {RETENTION} from '../../core/journal/types.js'
import {RESYNC_REASONS} from '../../core/feeds/events.js'
import type {StoredEntry} from '../../store/journal/repo.js'
import type {Store} from '../../store/types.js'

export interface Subscriber {
  accountId: number
  /** The bookmark the client holds (replay what followed it), or null: from now on. */
  after: number | null
  /** Whether the subscription carries this entry (of its account); decided in memory. */
  match(entry: StoredEntry): boolean
  /** A matching entry, in journal order, once. */
  deliver(entry: StoredEntry): void
  /** The client must read everything again (`reason`); the subscription goes on after `head`, the newest bookmark. */
  resync(reason: string, head: number): void
  /** The hub stopped (the server is stopping): end the stream. */
  ended?(): void
}

export interface Subscription {
  /** Resolves once the subscription has caught up (replayed) and receives live entries. */
  readonly ready: Promise<void>
  /** The bookmark the client has everything up to (what a heartbeat can tell it). */
  position(): number
  close(): void
}

export interface FeedHubOptions {
  /** Entries read per query (default 500). */
  batch?: number
  /** Entries kept in memory for resuming subscriptions (default 4096). */
  ring?: number
  /** The safety poll, ms (default 1000). */
  pollMs?: number
  /** The journal's retention in days (a bookmark older than it may have lost entries after it). */
  retentionDays?: number
  log?: (line: string) => void
}

export interface FeedHub {
  start(): void
  subscribe(s: Subscriber): Subscription
  /** Subscriptions open on this instance. */
  size(): number
  /** The newest bookmark this hub has handed out. */
  head(): number
  /** Reads the journal now (as a commit's signal does). */
  wake(): void
  /** Ends every subscription (`ended`) and stops reading; idempotent. */
  stop(): Promise<void>
}

interface Sub {
  s: Subscriber
  /** The last bookmark given to (or passed over for) this subscription. */
  cursor: number
  live: boolean
  closed: boolean
}

export function createFeedHub(store: Store, options: FeedHubOptions = {}): FeedHub {
  const journal = store.journal
  const batch = options.batch ?? 500
  const ringSize = options.ring ?? 4096
  const retentionMs = (options.retentionDays ?? RETENTION.days) * 86_400_000
  /** Live subscriptions by account. */
  const live = new Map<number, Set<Sub>>()
  const all = new Set<Sub>()
  /** Every entry up to `head` has been handed out; the ring holds those after `ringFrom`. */
  let head = 0
  let ringFrom = 0
  let ring: StoredEntry[] = []
  let started: Promise<void> | undefined
  let stopped = false
  let reading: Promise<void> | undefined
  let again = false
  let poll: NodeJS.Timeout | undefined
  let unlisten: (() => void) | undefined
  let failures = 0

  const goLive = (sub: Sub) => {
    if (sub.closed) return
    sub.live = true
    let set = live.get(sub.s.accountId)
    if (!set) live.set(sub.s.accountId, (set = new Set()))
    set.add(sub)
  }
  const drop = (sub: Sub) => {
    sub.closed = true
    all.delete(sub)
    const set = live.get(sub.s.accountId)
    if (set?.delete(sub) && set.size === 0) live.delete(sub.s.accountId)
  }
  /** Hands `e` to `sub` unless it had it; a subscriber that throws is dropped. */
  const give = (sub: Sub, e: StoredEntry) => {
    if (sub.closed || e.seq <= sub.cursor) return
    sub.cursor = e.seq
    if (e.accountId !== sub.s.accountId) return
    try {
      if (sub.s.match(e)) sub.s.deliver(e)
    } catch (error) {
      options.log?.(`feeds: a subscriber failed: ${(error as Error).message}`)
      drop(sub)
    }
  }

  const dispatch = (entries: StoredEntry[]) => {
    for (const e of entries) {
      const subs = live.get(e.accountId)
      if (subs) for (const sub of subs) give(sub, e)
      head = e.seq
    }
    if (all.size === 0) {
      ring = []
      ringFrom = head
      return
    }
    ring.push(...entries)
    if (ring.length > ringSize) {
      const cut = ring.length - ringSize
      ringFrom = ring[cut - 1]!.seq
      ring = ring.slice(cut)
    }
  }

  /** Reads what was committed after `head`, until nothing more. */
  const pump = async () => {
    do {
      again = false
      if (all.size === 0) {
        // Nobody listens: only the position moves (one indexed read), nothing is kept.
        const newest = await journal.head()
        if (all.size === 0) {
          head = Math.max(head, newest)
          ring = []
          ringFrom = head
        } else {
          // Someone subscribed meanwhile, from `head`: the entries after it are read and handed out, not skipped.
          again = true
        }
        continue
      }
      for (;;) {
        const entries = await journal.after(head, batch)
        if (stopped) return
        dispatch(entries)
        if (entries.length < batch) break
      }
    } while (again && !stopped)
  }
  const read = (): Promise<void> => {
    if (stopped) return Promise.resolve()
    if (reading) {
      again = true
      return reading
    }
    reading = pump()
      .then(() => void (failures = 0))
      .catch((error) => {
        // The journal could not be read (the database away): try again, less often.
        failures++
        if (failures === 1 || failures % 60 === 0) options.log?.(`feeds: reading the journal failed: ${(error as Error).message}`)
        again = false
      })
      .finally(() => {
        reading = undefined
        if (again && !stopped) void read()
      })
    return reading
  }

  const start = () => {
    started ??= (async () => {
      unlisten ??= journal.signal.on(() => void read())
      head = await journal.head()
      ringFrom = head
      const tick = () => {
        if (stopped) return
        poll = setTimeout(() => void read().finally(tick), Math.min(30_000, (options.pollMs ?? 1000) * (1 + Math.min(failures, 30)))).unref()
      }
      tick()
    })().catch((error) => {
      // The journal could not be read (the database away at start): the next subscription tries again.
      started = undefined
      throw error
    })
    return started
  }

  /** Checks that the subscription's bookmark can be resumed from (else resync), then joins it. */
  const catchUp = async (sub: Sub) => {
    const after = sub.s.after
    if (after !== null) {
      // (Not compared with `head` first: another instance, or a write not yet read here, may have handed out a newer bookmark.)
      const at = await journal.timeAt(after)
      const known = at !== null
      if (!known || Date.parse(at) < Date.now() - retentionMs + 60_000) {
        // Past what the journal keeps, or a bookmark it never held (another database, a restored backup).
        const newest = Math.max(head, await journal.head())
        const reason = known || after <= newest ? RESYNC_REASONS.retention : RESYNC_REASONS.unknown
        if (sub.closed) return
        // On from the newest entry (the client reads its data again from there; a bookmark from the future is forgotten).
        sub.cursor = newest
        sub.s.resync(reason, sub.cursor)
        return join(sub)
      }
    }
    await join(sub)
  }

  /** Hands `sub` what followed its cursor (ring, else the journal) until it has caught up, then adds it to the live set. */
  const join = async (sub: Sub) => {
    for (let rounds = 0; !sub.closed; rounds++) {
      if (sub.cursor >= ringFrom) {
        // The ring holds everything after the cursor up to head: hand it out and join, in one step.
        for (const e of ring) give(sub, e)
        sub.cursor = Math.max(sub.cursor, head)
        return goLive(sub)
      }
      // Older than the ring: the account's own entries from the journal, up to a bookmark every entry
      // below which has committed (positions are commit order), then the ring or the live reading.
      const upTo = Math.max(head, ringFrom)
      for (;;) {
        const entries = await journal.afterInAccount(sub.s.accountId, sub.cursor, upTo, batch)
        for (const e of entries) give(sub, e)
        if (sub.closed) return
        if (entries.length < batch) break
      }
      sub.cursor = Math.max(sub.cursor, upTo)
      if (rounds > 1000) throw new Error('feeds: a subscription could not catch up')
    }
  }

  return {
    start: () => void start().catch((error) => options.log?.(`feeds: ${(error as Error).message}`)),
    subscribe(s) {
      const sub: Sub = {s, cursor: 0, live: false, closed: stopped}
      const ready = (async () => {
        await start()
        if (sub.closed) return
        if (s.after === null) {
          // From now on, counted from the hub's own reading: it may lag behind the newest commit, so a
          // few changes made just before may come too, but none made after the stream answered is missed
          // (a client opens the feed, then reads its data).
          sub.cursor = head
          return goLive(sub)
        }
        sub.cursor = s.after
        await catchUp(sub)
      })().catch((error) => {
        if (sub.closed) return
        options.log?.(`feeds: a subscription could not resume: ${(error as Error).message}`)
        drop(sub)
        // The client is told to read again, and its stream ends (it reconnects and tries again).
        try {
          s.resync(RESYNC_REASONS.lagging, head)
        } finally {
          s.ended?.()
        }
      })
      if (!stopped) all.add(sub)
      // A hub that has stopped (the server is stopping) ends the stream at once.
      else queueMicrotask(() => s.ended?.())
      return {
        ready,
        position: () => (sub.live ? Math.max(sub.cursor, head) : sub.cursor),
        close: () => drop(sub),
      }
    },
    size: () => all.size,
    head: () => head,
    wake: () => void read(),
    async stop() {
      if (stopped) return
      stopped = true
      unlisten?.()
      clearTimeout(poll)
      for (const sub of [...all]) {
        drop(sub)
        try {
          sub.s.ended?.()
        } catch {
          // Its stream is closing anyway.
        }
      }
      await reading?.catch(() => undefined)
    },
  }
}
