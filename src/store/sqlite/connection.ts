import type Database from 'better-sqlite3'
import {mkdirSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join, resolve} from 'node:path'
import {EpochEntries} from '../cache-entries.js'
import {MIGRATIONS} from './migrations/index.js'

export type Sqlite = Database.Database

// better-sqlite3 is CommonJS: require() skips the ESM named-export scan, and naming the addon skips
// the `bindings` package's search of a dozen paths (both count in a cold `svc prompt render`).
const require = createRequire(import.meta.url)
const SqliteDatabase = require('better-sqlite3') as typeof Database
const ADDON = (() => {
  try {
    return require.resolve('better-sqlite3/build/Release/better_sqlite3.node')
  } catch {
    return undefined // an unusual build layout: let better-sqlite3 find its addon itself
  }
})()

/** The path of better-sqlite3's addon, when found where a normal build puts it. */
export const sqliteAddon = () => ADDON

/** The data file inside a data dir: `DIR/svc.sqlite`. */
export const dataFile = (dataDir: string) => join(resolve(dataDir), 'svc.sqlite')

/**
 * Opens (creating when needed) the SQLite file of a data dir: WAL, busy_timeout, foreign keys,
 * and the numbered migrations run in one immediate transaction.
 * Several processes (a `svc serve` and embedded CLI calls) may share one file.
 */
export function openSqlite(dataDir: string, options: {readonly?: boolean} = {}): Sqlite {
  mkdirSync(resolve(dataDir), {recursive: true})
  const db = new SqliteDatabase(dataFile(dataDir), {readonly: options.readonly ?? false, nativeBinding: ADDON})
  db.pragma('busy_timeout = 10000')
  db.pragma('journal_mode = WAL')
  // NORMAL is durable across a crash of the process (kill -9); only an OS crash may lose the last commits.
  db.pragma('synchronous = NORMAL')
  // Checkpoint the WAL every ~40 MB instead of every 4 MB: a page written many times between two
  // checkpoints is copied back once, and record writes pay the checkpoint's syncs ten times less often.
  db.pragma('wal_autocheckpoint = 10000')
  db.pragma('foreign_keys = ON')
  if (!options.readonly) migrate(db)
  reuseStatements(db)
  return db
}

/**
 * Prepared statements are kept and reused by their SQL text: preparing costs more than running a
 * typical query here (it was most of the time of a record create). No repository changes a
 * statement's mode (pluck, raw, expand), so a shared statement behaves the same for every caller.
 */
function reuseStatements(db: Sqlite): void {
  const prepare = db.prepare.bind(db)
  const cache = new Map<string, Database.Statement>()
  db.prepare = ((sql: string) => {
    let statement = cache.get(sql)
    if (!statement) {
      if (cache.size >= 2000) cache.clear() // search SQL varies with its fields: keep the cache bounded
      statement = prepare(sql)
      cache.set(sql, statement)
    }
    return statement
  }) as Sqlite['prepare']
}

function migrate(db: Sqlite): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)')
  const applied = new Set(
    (db.prepare('SELECT id FROM schema_migrations').all() as {id: number}[]).map((r) => r.id),
  )
  const pending = MIGRATIONS.filter((m) => !applied.has(m.id))
  if (pending.length === 0) return
  const run = db.transaction(() => {
    // Re-read inside the write lock: another process may have migrated meanwhile.
    const done = new Set((db.prepare('SELECT id FROM schema_migrations').all() as {id: number}[]).map((r) => r.id))
    for (const m of pending) {
      if (done.has(m.id)) continue
      if (m.up.trim()) db.exec(m.up)
      db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(m.id, m.name, new Date().toISOString())
    }
  })
  run.immediate()
}

/**
 * The cache epoch (migration 090): it moves with every committed change of accounts, users, teams,
 * groups, departments, tokens or dbs, by this process or another one sharing the data file. A read
 * cache of those rows keeps the epoch it read them at and is valid while the epoch is unchanged.
 *
 * Read at most once per turn of the event loop: a read outside a transaction costs a WAL read lock
 * (~20 µs, more than the cached rows), and the requests of one turn arrived together. A write of
 * this process forgets the turn's value, so its own changes are seen at once; another process's
 * change is seen by every request that starts after the turn it committed in.
 */
export function cacheEpoch(db: Sqlite): number {
  let epoch = epochThisTurn.get(db)
  if (epoch === undefined) {
    epoch = (db.prepare('SELECT n FROM cache_epoch WHERE id = 1').get() as {n: number}).n
    epochThisTurn.set(db, epoch)
    if (!epochResetScheduled) {
      epochResetScheduled = true
      setImmediate(forgetEpochs)
    }
  }
  return epoch
}

let epochThisTurn = new WeakMap<Sqlite, number>()
let epochResetScheduled = false
function forgetEpochs(): void {
  epochThisTurn = new WeakMap()
  epochResetScheduled = false
}

/** A bounded map of values read at a cache epoch; a stale or missing entry is read again. */
export class EpochCache<V> {
  private readonly entries: EpochEntries<V>
  constructor(private readonly db: Sqlite, maxEntries = 1000) {
    this.entries = new EpochEntries(maxEntries)
  }

  /** The cached value of `key`, else `read()` (cached unless it returns null or undefined). */
  get(key: string, read: () => V | null | undefined): V | null {
    // Inside a transaction the epoch may count uncommitted changes that a rollback takes back.
    if (this.db.inTransaction) return read() ?? null
    const epoch = cacheEpoch(this.db)
    return this.entries.at(key, epoch) ?? this.entries.keep(key, epoch, read())
  }
}

/** Runs `fn` in a `BEGIN IMMEDIATE` transaction (the write lock is taken up front). */
export function writeTx<T>(db: Sqlite, fn: () => T): T {
  try {
    return runner(db).immediate(fn) as T
  } finally {
    epochThisTurn.delete(db)
  }
}

/**
 * One better-sqlite3 transaction function per connection that runs the function it is given:
 * `.immediate(fn)` is `BEGIN IMMEDIATE`, a plain call inside a transaction is a savepoint. Made
 * once, since building a transaction function per write costs more than a small write.
 */
const runners = new WeakMap<Sqlite, Database.Transaction<(fn: () => unknown) => unknown>>()
export function runner(db: Sqlite): Database.Transaction<(fn: () => unknown) => unknown> {
  let run = runners.get(db)
  if (!run) runners.set(db, (run = db.transaction((fn: () => unknown) => fn())))
  return run
}
