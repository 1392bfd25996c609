/**
 * A schema change's reindex off the server's thread (SQLite; docs/dbs.md "Reindexing"): its slices
 * (store/dbs/reindex.ts) run on a worker thread with a connection of its own (reindex-worker.ts).
 *
 * On the server's thread a slice of 250 records held it about 20 ms (read the records, parse their
 * JSON, compute their index values, rewrite their index columns), and a request that met a slice
 * waited for it: with a reindexing manager and 2-3 anonymous flooders another account's p99 went
 * past 3x its quiet p99 (docs/benchmarks.md). On the thread, a slice holds that thread and the
 * file's write lock; the server's connection holds its writes meanwhile (group-commit.ts
 * holdWrites: they wait without blocking the event loop, then run in their order) and its reads go
 * on beside it (WAL). Where no thread can start (no file, or one that fails to open it), the
 * caller runs the slices on the server's connection as before.
 */
import {SvcError} from '../../core/errors.js'
import type {ReindexThread} from '../dbs/types.js'
import type {Sqlite} from './connection.js'
import {holdWrites} from './group-commit.js'
import type {ReindexRequest} from './reindex-worker.js'
import {startWriter, type WriterThread} from './threads.js'

/** The reindex thread of a connection and the reindexes using it. */
const shared = new WeakMap<Sqlite, {thread: Promise<WriterThread<ReindexRequest> | undefined>; users: number}>()

/**
 * The reindex thread of `db`, or undefined where none can start. One per connection, shared by the
 * reindexes under way (started by the first, stopped by the last): their slices take the write lock
 * one at a time anyway (holdWrites), so a thread per reindex would add memory, not speed, and a
 * manager changing the schema of many dbs at once would start as many threads.
 */
export async function reindexThread(db: Sqlite): Promise<ReindexThread | undefined> {
  let entry = shared.get(db)
  if (!entry) shared.set(db, (entry = {thread: startWriter<ReindexRequest>(db, 'reindex-worker', 'the reindex thread'), users: 0}))
  const used = entry
  used.users++
  const release = async () => {
    if (--used.users > 0) return
    if (shared.get(db) === used) shared.delete(db)
    await (await used.thread)?.stop()
  }
  const thread = await used.thread
  if (!thread) {
    await release()
    return undefined
  }
  let stopped = false
  return {
    async slice(dbId) {
      // The store closed (the server stopped): the mark stays, and the next start finishes the reindex.
      if (!db.open) throw new SvcError('unavailable', 503, 'storage unavailable: the database is closed; the reindex resumes when the server starts')
      const {changes, ms} = await holdWrites(db, () => thread.timed({dbId}))
      return {more: changes > 0, ms}
    },
    async stop() {
      if (stopped) return
      stopped = true
      await release()
    },
  }
}
