/**
 * The SQL port over the SQLite connection (src/store/sql/port.ts): statements run synchronously
 * on better-sqlite3 (its prepared statements are reused by SQL text, see connection.ts), single
 * writes and transaction bodies inside `BEGIN IMMEDIATE` (writeTx), failures of the disk mapped to
 * SvcError (errors.ts), the cache epoch read once per turn of the event loop.
 */
import {EpochEntries} from '../cache-entries.js'
import {driveSync, type EpochCache, type SqlPort, type SqlStep, type TxBody, type TxSql, txSql} from '../sql/port.js'
import {cacheEpoch, type Sqlite, writeTx} from './connection.js'
import {sqliteDialect} from './dialect.js'
import {mapSqliteError} from './errors.js'
import {queuedWrite, writesHeld} from './group-commit.js'
import type {JournalSignal} from '../journal/signal.js'

export {sqliteDialect}

export class SqlitePort implements SqlPort {
  readonly dialect = sqliteDialect
  /** A transaction body appended a journal entry since the last signal. */
  private appended = false
  /** `journal`: told after a transaction that appended to the journal ended (committed, or rolled back: a spurious signal). */
  constructor(readonly db: Sqlite, private readonly journal?: JournalSignal) {}

  /** Signals the journal's readers once the transactions that appended have ended. */
  private readonly signal = () => {
    if (!this.appended) return
    this.appended = false
    this.journal?.emit()
  }

  async get<R>(sql: string, params: unknown[] = []): Promise<R | undefined> {
    return mapped(() => this.db.prepare(sql).get(...params) as R | undefined)
  }

  async all<R>(sql: string, params: unknown[] = []): Promise<R[]> {
    return mapped(() => this.db.prepare(sql).all(...params) as R[])
  }

  async run(sql: string, params: unknown[] = []): Promise<number> {
    if (writesHeld(this.db)) await this.writable()
    return mapped(() => writeTx(this.db, () => this.db.prepare(sql).run(...params).changes))
  }

  async write<R>(sql: string, params: unknown[] = []): Promise<R | undefined> {
    if (writesHeld(this.db)) await this.writable()
    return mapped(() => writeTx(this.db, () => this.db.prepare(sql).get(...params) as R | undefined))
  }

  async tx<T>(body: (q: TxSql) => TxBody<T>): Promise<T> {
    if (writesHeld(this.db)) await this.writable()
    try {
      return mapped(() => writeTx(this.db, () => driveSync(body(txSql), (step) => this.exec(step))))
    } finally {
      this.signal()
    }
  }

  queued<T>(body: (q: TxSql) => TxBody<T>): Promise<T> {
    return queuedWrite(this.db, () => driveSync(body(txSql), (step) => this.exec(step))).catch(rejectMapped).finally(this.signal)
  }

  queuedRun(sql: string, params: unknown[] = []): Promise<number> {
    return queuedWrite(this.db, () => this.db.prepare(sql).run(...params).changes).catch(rejectMapped)
  }

  /**
   * Resolves once this connection may start a write transaction: at once, unless another thread of
   * this process holds the write lock (group-commit.ts holdWrites). Awaited in a loop: a hold may
   * follow another.
   */
  private async writable(): Promise<void> {
    for (let held = writesHeld(this.db); held; held = writesHeld(this.db)) await held
  }

  /** Runs one statement of a transaction body, synchronously. */
  private exec(step: SqlStep): unknown {
    switch (step.op) {
      case 'get':
        // The journal's append (writer.ts INSERT ... RETURNING seq) is the one statement that tells its readers.
        if (step.sql.startsWith('INSERT INTO journal ')) this.appended = true
        return this.db.prepare(step.sql).get(...step.params)
      case 'all': return this.db.prepare(step.sql).all(...step.params)
      case 'run': return this.db.prepare(step.sql).run(...step.params).changes
      case 'lock': return undefined
    }
  }

  epochCache<V>(maxEntries = 1000): EpochCache<V> {
    const entries = new EpochEntries<V>(maxEntries)
    const db = this.db
    return {
      async get(key, read) {
        // Inside a transaction the epoch may count uncommitted changes that a rollback takes back.
        if (db.inTransaction) return (await read()) ?? null
        const epoch = cacheEpoch(db)
        return entries.at(key, epoch) ?? entries.keep(key, epoch, await read())
      },
    }
  }
}

const rejectMapped = (error: unknown): never => {
  throw mapSqliteError(error)
}

function mapped<T>(run: () => T): T {
  try {
    return run()
  } catch (error) {
    throw mapSqliteError(error)
  }
}
