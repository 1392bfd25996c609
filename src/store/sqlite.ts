import type Database from 'better-sqlite3'
import {mkdirSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join, resolve} from 'node:path'
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

/** Runs `fn` in a `BEGIN IMMEDIATE` transaction (the write lock is taken up front). */
export function writeTx<T>(db: Sqlite, fn: () => T): T {
  return db.transaction(fn).immediate()
}
