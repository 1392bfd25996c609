/**
 * The journal's retention (docs/history.md), run by `svc serve`: entries older than the retention
 * go, each resource keeping its newest versions; dbs deleted longer ago than the retention lose
 * their records (kept until then so that a restore brings them back) and their row. Work is done
 * in slices with a turn of the event loop between (SQLite runs on the server's thread); on N
 * instances only the upkeep leader prunes.
 */
import {RETENTION} from '../core/journal/types.js'
import type {Store} from '../store/types.js'

export interface RetentionOptions {
  /** Entries older than this many days go (default 30). */
  days?: number
  /** Versions each resource keeps whatever their age (default 10). */
  minVersions?: number
  /** Between two passes (default an hour). */
  everyMs?: number
  log?: (line: string) => void
}

export interface JournalRetention {
  start(): void
  /** One whole pass now (tests, `svc serve` at start): entries removed. */
  runOnce(): Promise<number>
  stop(): Promise<void>
}

export function journalRetention(store: Store, options: RetentionOptions = {}): JournalRetention {
  const days = options.days ?? RETENTION.days
  const minVersions = options.minVersions ?? RETENTION.minVersions
  const stopper = new AbortController()
  let timer: NodeJS.Timeout | undefined
  let running: Promise<number> | undefined

  const pass = async (): Promise<number> => {
    if (!(await store.cluster.lead())) return 0
    const before = new Date(Date.now() - days * 86_400_000).toISOString()
    // Dbs deleted before the retention first: their records' entries then go with the rest.
    await store.dbs.purgeDeleted(stopper.signal, before)
    let removed = 0
    for (let after = 0; !stopper.signal.aborted;) {
      const slice = await store.journal.pruneSlice(before, minVersions, after)
      removed += slice.removed
      if (slice.next === null) break
      after = slice.next
      await new Promise((resolve) => setImmediate(resolve))
    }
    return removed
  }
  const runOnce = () => {
    running ??= pass().finally(() => (running = undefined))
    return running
  }
  const tick = () => {
    runOnce().catch((error) => options.log?.(`journal retention: ${(error as Error).message}`)).finally(() => {
      if (!stopper.signal.aborted) timer = setTimeout(tick, options.everyMs ?? 3_600_000).unref()
    })
  }
  return {
    start: () => tick(),
    runOnce,
    async stop() {
      stopper.abort()
      if (timer) clearTimeout(timer)
      await running?.catch(() => undefined)
    },
  }
}
