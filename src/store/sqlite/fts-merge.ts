/**
 * A db's purge off the server's thread (SQLite; docs/reliability.md): its slices and the trigram
 * index's merge steps after them run on a worker thread with a connection of its own.
 *
 * A db's purge deletes its records in slices with FTS5's merges held back (fts-indexer.ts
 * holdDeleteMerges); the index's segments then hold tombstones for every purged record, and merging
 * them away is FTS5's work: `INSERT INTO f(f, rank) VALUES ('merge', N)` writes at most about N leaf
 * pages a step, but it counts pages *written*, and a segment whose every entry was deleted writes
 * none: FTS5 reads it whole and drops it in one step (sqlite3.c fts5IndexMergeLevel). That step took
 * 0.4 s of the server's thread at 300,000 purged records and 1.4-2.4 s at 1M, and no FTS5 setting
 * makes it smaller (`usermerge`/`automerge` choose which levels merge, not how much of a dead
 * segment one step reads; 'secure-delete' during the purge made its slices 0.15-1.3 s each). The
 * slices themselves add tombstones to the big segments, and now and then FTS5 rebuilds a segment's
 * tombstone hash whole (69 ms of CPU for one slice of 500 at 1M).
 *
 * On the thread, a slice or a step holds that thread and the file's write lock, and the server's
 * connection holds its writes meanwhile (holdWrites: they wait without blocking the event loop, then
 * run in their order). Reads go on beside it (WAL). Where no worker can start (no file, or a worker
 * that fails to open it), the slices and steps run on the server's connection as before.
 */
import type {Sqlite} from './connection.js'
import {mergeStep} from './fts-merge-step.js'
import type {MergeRequest} from './fts-merge-worker.js'
import {holdWrites, queuedWrite} from './group-commit.js'
import {startWriter} from './threads.js'

/**
 * The thread of one purge: its slices (`run`) and the merge steps after (`merge`), each a
 * transaction on the thread's own connection with this connection's writes held meanwhile; without
 * a thread (none could start), the merge steps run on `db` itself and `run` is absent (the caller
 * runs its slices on the server's connection, as before).
 */
export interface PurgeWriter {
  run?(sql: string, params: unknown[]): Promise<number>
  /**
   * Runs merge steps of `pages` leaf pages, each with FTS5's delete-merges at `deleteMerge` percent
   * (and 0 again once it commits: fts-merge-step.ts), until FTS5 finds nothing left to merge or
   * `signal` aborts. Returns whether it ran to the end.
   */
  merge(pages: number, deleteMerge: number, signal?: AbortSignal): Promise<boolean>
  stop(): Promise<void>
}

export async function purgeWriter(db: Sqlite): Promise<PurgeWriter> {
  const thread = await startWriter<MergeRequest>(db, 'fts-merge-worker', 'the full-text index\'s merge thread')
  const step = (pages: number, deleteMerge: number) => thread
    ? holdWrites(db, () => thread.send({op: 'merge', pages, deleteMerge}))
    : queuedWrite(db, () => mergeStep(db, pages, deleteMerge))
  return {
    run: thread && ((sql, params) => holdWrites(db, () => thread.send({op: 'run', sql, params}))),
    async merge(pages, deleteMerge, signal) {
      while (!signal?.aborted && db.open) {
        if ((await step(pages, deleteMerge)) < 2) return true
        await new Promise((resolve) => setImmediate(resolve)) // the writes held meanwhile go first
      }
      return false
    },
    stop: async () => thread?.stop(),
  }
}
