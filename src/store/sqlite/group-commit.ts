/**
 * Group commit of record writes (docs/architecture.md "Storage"): the writes that arrive in one
 * turn of the event loop share one SQLite transaction.
 */
import {runner, type Sqlite, writeTx} from './connection.js'

interface QueuedWrite {
  fn: () => unknown
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

/**
 * Writes of this connection held back while another thread of this process writes the file
 * (`holdWrites`): a write transaction started meanwhile would wait for its lock in SQLite's
 * busy handler, which sleeps on the server's thread (busy_timeout).
 */
const writeHolds = new WeakMap<Sqlite, Promise<void>>()

/** While writes are held (`holdWrites`), a promise that resolves once they may start again. */
export function writesHeld(db: Sqlite): Promise<void> | undefined {
  return writeHolds.get(db)
}

/**
 * Runs `work` (a write on another connection of this process, in a worker thread) with this
 * connection's writes held: group commits and the port's writes wait for it without blocking the
 * event loop (reads go on: WAL), then run in their order. One hold at a time: a second waits for
 * the first. Called between transactions (never inside one: a transaction body is synchronous).
 */
export async function holdWrites<T>(db: Sqlite, work: () => Promise<T>): Promise<T> {
  for (let held = writeHolds.get(db); held; held = writeHolds.get(db)) await held
  let open!: () => void
  writeHolds.set(db, new Promise<void>((resolve) => (open = resolve)))
  try {
    return await work()
  } finally {
    writeHolds.delete(db)
    open()
  }
}

/** Writes waiting for the next group commit, per connection. */
const writeQueues = new WeakMap<Sqlite, QueuedWrite[]>()
/** A bound on one group commit, so that one transaction (and the write lock) stays short. */
const GROUP_COMMIT_MAX = 256

/**
 * Group commit: runs `fn` in a write transaction shared with the other writes queued in the same
 * turn of the event loop, and resolves once that transaction is committed (never before). A write
 * that throws is rolled back alone and rejects alone; the others commit (the group then runs a
 * second time with a savepoint per write, so `fn` must do nothing but database work). If the
 * commit itself fails (full disk, I/O error), every write of the group rejects and nothing of it
 * was written. A commit costs more than a typical record write (the
 * WAL frames of the row, its index b-trees and a new full-text segment), so concurrent writers
 * share it instead of queueing behind one commit each.
 */
export function queuedWrite<T>(db: Sqlite, fn: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let queue = writeQueues.get(db)
    if (!queue) writeQueues.set(db, (queue = []))
    queue.push({fn, resolve: resolve as (value: unknown) => void, reject})
    if (queue.length === 1) setImmediate(() => commitQueued(db))
  })
}

type Outcome = {ok: true; value: unknown} | {ok: false; error: unknown}
/** Thrown out of a group's first run to roll it back: one of its writes failed. */
const RETRY_WITH_SAVEPOINTS = Symbol('retry with savepoints')

function commitQueued(db: Sqlite): void {
  const queue = writeQueues.get(db)
  if (!queue?.length) return
  const held = writesHeld(db)
  if (held) {
    void held.then(() => commitQueued(db))
    return
  }
  const group = queue.splice(0, GROUP_COMMIT_MAX)
  if (queue.length) setImmediate(() => commitQueued(db))
  let outcomes: Outcome[]
  try {
    try {
      // First run: no savepoints (FTS5 writes its pending terms out as a new segment at every
      // savepoint, which costs more than the write). Any failure rolls the whole run back ...
      outcomes = writeTx(db, () => group.map((write): Outcome => {
        try {
          return {ok: true, value: write.fn()}
        } catch (error) {
          throw db.inTransaction ? RETRY_WITH_SAVEPOINTS : error
        }
      }))
    } catch (error) {
      if (error !== RETRY_WITH_SAVEPOINTS) throw error
      // ... and the group runs again with a savepoint per write, so only the failing ones fail.
      const savepoint = runner(db)
      outcomes = writeTx(db, () => group.map((write): Outcome => {
        try {
          return {ok: true, value: savepoint(write.fn)}
        } catch (error) {
          // SQLite rolls back the whole transaction on some errors (full disk, I/O): then nothing of
          // the group can commit, so fail all of it rather than run the rest outside a transaction.
          if (!db.inTransaction) throw error
          return {ok: false, error}
        }
      }))
    }
  } catch (error) {
    for (const write of group) write.reject(error)
    return
  }
  group.forEach((write, i) => {
    const outcome = outcomes[i]!
    if (outcome.ok) write.resolve(outcome.value)
    else write.reject(outcome.error)
  })
}
