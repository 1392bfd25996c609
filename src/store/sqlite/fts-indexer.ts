/**
 * The trigram full-text index of records, written in batches (docs/dbs.md "Search").
 *
 * A record write does not touch the index: a trigger queues the record's id in
 * `db_records_fts_pending` (an append at the end of a small table). `indexPending` moves queued
 * records into `db_records_fts` many at a time, which costs a fraction of indexing them one commit
 * at a time (FTS5 writes a new segment per commit and merges segments as they pile up).
 * A search stays exact meanwhile: its candidates are the index's matches plus every queued record,
 * and each candidate is checked against its current data.
 */
import {type PurgeWriter, purgeWriter} from './fts-merge.js'
import {queuedWrite} from './group-commit.js'
import type {Sqlite} from './connection.js'

/** How many records are queued before they are indexed: also about the most a search checks beyond the index. */
export const FTS_BATCH = 256
/** The most one indexing run takes: more than one batch, since other processes sharing the file queue records too. */
const RUN_MAX = FTS_BATCH * 4
/** An indexing run after the last write, so that a server left idle ends with nothing queued. */
const IDLE_INDEX_MS = 1000

const UP_TO = 'SELECT max(id) AS up_to FROM (SELECT id FROM db_records_fts_pending ORDER BY id LIMIT ?)'
const INDEX = `INSERT INTO db_records_fts (rowid, content)
  SELECT r.id, (SELECT coalesce(group_concat(value, char(10)), '') FROM json_each(r.data) WHERE type IN ('text', 'integer', 'real'))
  FROM db_records_fts_pending p JOIN db_records r ON r.id = p.id WHERE p.id <= ? ORDER BY p.id`
const DONE = 'DELETE FROM db_records_fts_pending WHERE id <= ?'

/** The search condition's candidates: index matches for the bound FTS5 query, and every record not indexed yet. */
export const FTS_CANDIDATES = 'SELECT rowid FROM db_records_fts WHERE db_records_fts MATCH ? UNION ALL SELECT id FROM db_records_fts_pending'

/**
 * Indexes up to `limit` queued records (the oldest first; -1: all) and returns how many. Runs
 * inside the caller's write transaction, so the index and the queue change together.
 */
export function indexPending(db: Sqlite, limit = -1): number {
  const {up_to: upTo} = db.prepare(UP_TO).get(limit) as {up_to: number | null}
  if (upTo === null) return 0
  const {changes} = db.prepare(INDEX).run(upTo)
  db.prepare(DONE).run(upTo)
  return changes
}

/**
 * Called inside a record insert's transaction: the insert whose id is a multiple of FTS_BATCH
 * indexes the queued records. Ids grow for every writer of the file, so this holds for a server
 * and for short CLI processes alike, and the queue stays near FTS_BATCH records.
 */
export function indexOnBatchBoundary(db: Sqlite, recordId: number): void {
  if (recordId % FTS_BATCH === 0) indexPending(db, RUN_MAX)
}

const updatesSinceIndex = new WeakMap<Sqlite, number>()

/**
 * Called inside a record update's transaction (an updated record is queued again): every
 * FTS_BATCH updates through this connection index the queue, so steady updates without creates
 * do not grow it either.
 */
export function indexAfterUpdates(db: Sqlite): void {
  const count = (updatesSinceIndex.get(db) ?? 0) + 1
  updatesSinceIndex.set(db, count % FTS_BATCH)
  if (count === FTS_BATCH) indexPending(db, RUN_MAX)
}

/** Records one run of `indexQueue` indexes in its own transaction (a few ms to ~20 ms), then a turn of the event loop. */
const QUEUE_RUN = FTS_BATCH * 2

/**
 * Indexes every queued record, QUEUE_RUN per transaction with a turn of the event loop between
 * (an import's batch: indexing its 1,000 records inside the batch's transaction held the server's
 * thread ~2x as long as the insert alone). Searches stay exact meanwhile (queued records are candidates).
 */
export async function indexQueue(db: Sqlite): Promise<void> {
  while (db.open && (await queuedWrite(db, () => indexPending(db, QUEUE_RUN))) >= QUEUE_RUN) {
    await new Promise((resolve) => setImmediate(resolve))
  }
}

const idleTimers = new WeakMap<Sqlite, NodeJS.Timeout>()

/**
 * Called after record writes: once this connection has written nothing for a second, an indexing
 * run joins a group commit, so a server left idle ends with nothing queued. One timer per
 * connection, pushed back by each write (`refresh`, no new timer per write). A failed run leaves
 * the records queued (searches still find them) for the next run.
 */
export function indexWhenIdle(db: Sqlite): void {
  const timer = idleTimers.get(db)
  if (timer) {
    timer.refresh()
    return
  }
  const created = setTimeout(() => {
    if (!db.open) return
    queuedWrite(db, () => indexPending(db, RUN_MAX))
      .then((n) => n === RUN_MAX && indexWhenIdle(db)) // more queued (by other writers): another run
      .catch(() => undefined)
  }, IDLE_INDEX_MS)
  created.unref()
  idleTimers.set(db, created)
}

/** FTS5's default share of deleted entries past which it merges a segment again ('deletemerge'). */
const DELETE_MERGE_DEFAULT = 10
/** FTS5's default for 'automerge': a level of this many segments is merged as writes add pages. */
const AUTOMERGE_DEFAULT = 4
/** Leaf pages one merge step of the index writes after a purge ('merge'). Dropping an emptied segment is
 * one step whatever its size (~0.4 s at 300,000 purged records, 1.4-2.4 s at 1M): fts-merge.ts runs the
 * steps on a thread of their own. */
const MERGE_STEP_PAGES = 100
const purgesRunning = new WeakMap<Sqlite, number>()

/** FTS5's merge settings, stored in the file (every connection reads them). */
const setMerges = (db: Sqlite, deleteMerge: number, automerge: number) => queuedWrite(db, () => {
  // Literals: FTS5 refuses a bound value here ('SQL logic error').
  db.exec(`INSERT INTO db_records_fts (db_records_fts, rank) VALUES ('deletemerge', ${Math.trunc(deleteMerge)})`)
  db.exec(`INSERT INTO db_records_fts (db_records_fts, rank) VALUES ('automerge', ${Math.trunc(automerge)})`)
})

/**
 * Holds back the index's merges while a db's records are purged in slices. With delete-merges on,
 * each slice's deletes pushed segments past 10 % deleted and FTS5 rewrote them in that slice's commit:
 * purging 100,000 records in slices of 1,000 took 21 s with single slices of 3.7 s, against 1.9 s
 * for one DELETE. With automerge on, FTS5 counts each deleted record as a page written and spends
 * that much merge work in the commit: the first slice of a 300,000-record purge took 0.3 s of CPU
 * merging other segments. Held, a slice takes 10-45 ms (1M records: 21 s in all, against 11 s).
 * The slices (`run`) run on a thread of their own (fts-merge.ts), the server's writes held meanwhile:
 * a slice's deletes add tombstones to every big segment, and now and then FTS5 rebuilds a segment's
 * tombstone hash whole (one slice of 500 at 1M took 69 ms of CPU). `release` (the last purge of this
 * connection to end) merges the emptied segments away in steps of MERGE_STEP_PAGES pages on that
 * thread, until FTS5 has nothing left to merge or `signal` aborts, then restores the settings.
 * They are stored in the file: a server that dies in a purge leaves them held until the purge is
 * finished (the next server start resumes it);
 * meanwhile new segments wait at level 0 (FTS5 still merges 16 of them: 'crisismerge').
 */
export async function holdDeleteMerges(db: Sqlite): Promise<{run?(sql: string, params: unknown[]): Promise<number>; release(signal?: AbortSignal): Promise<void>}> {
  const running = purgesRunning.get(db) ?? 0
  purgesRunning.set(db, running + 1)
  let writer: PurgeWriter | undefined
  try {
    if (running === 0) await setMerges(db, 0, 0)
    writer = await purgeWriter(db)
  } catch (error) {
    purgesRunning.set(db, purgesRunning.get(db)! - 1)
    await writer?.stop()
    throw error
  }
  const thread = writer
  return {
    run: thread.run,
    async release(signal) {
      const left = purgesRunning.get(db)! - 1
      purgesRunning.set(db, left)
      try {
        if (left > 0 || !db.open) return
        // The settings stay held for every other write until nothing is left to merge (fts-merge-step.ts);
        // cut short (the server stops), they are restored all the same, as a purge left them before.
        await thread.merge(MERGE_STEP_PAGES, DELETE_MERGE_DEFAULT, signal)
        if (!purgesRunning.get(db) && db.open) await setMerges(db, DELETE_MERGE_DEFAULT, AUTOMERGE_DEFAULT)
      } finally {
        await thread.stop()
      }
    },
  }
}
