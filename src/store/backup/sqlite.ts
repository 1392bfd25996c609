/**
 * Backup and restore on the SQLite driver. A backup reads on its own read-only connection inside
 * one read transaction: WAL keeps that snapshot for it while the server's writer goes on (no write
 * lock is taken, ever). A restore fills a fresh file in one immediate transaction.
 */
import {openSqlite, type Sqlite} from '../sqlite/connection.js'
import {accountFilter, type BackupSql} from './account.js'
import {isCarried, parentsFirst, type AccountScope, type CellValue, type StoreLoader, type StoreSnapshot, type TableShape} from './types.js'

function carriedTables(db: Sqlite): TableShape[] {
  const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {name: string}[])
    .map((r) => r.name).filter(isCarried)
  const refs = new Map<string, Set<string>>()
  for (const name of names) {
    const parents = db.prepare('SELECT "table" AS parent FROM pragma_foreign_key_list(?)').all(name) as {parent: string}[]
    refs.set(name, new Set(parents.map((p) => p.parent)))
  }
  return parentsFirst(names, refs).map((name) => ({name, columns: columnsOf(db, name).map((c) => c.name)}))
}

function columnsOf(db: Sqlite, table: string): {name: string; pk: number}[] {
  return db.prepare('SELECT name, pk FROM pragma_table_info(?) ORDER BY cid').all(table) as {name: string; pk: number}[]
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

function migrationsOf(db: Sqlite): number[] {
  return (db.prepare('SELECT id FROM schema_migrations ORDER BY id').all() as {id: number}[]).map((r) => r.id)
}

function cell(value: unknown): CellValue {
  if (value === null || typeof value === 'string' || typeof value === 'number') return value
  if (typeof value === 'bigint') return Number(value)
  throw new Error(`a value of type ${typeof value} cannot be carried`)
}

function portOf(db: Sqlite): BackupSql {
  return {
    all: async (sql, params) => db.prepare(sql).all(...params) as Record<string, unknown>[],
    run: async (sql, params) => {
      db.prepare(sql).run(...params)
    },
  }
}

/** ` WHERE …` of an account's rows, and its parameters (nothing without a scope). */
function scoped(table: string, scope?: AccountScope): {where: string; params: CellValue[]} {
  if (!scope) return {where: '', params: []}
  const {where, params} = accountFilter(table, scope.accountId)
  return {where: ` WHERE (${where})`, params}
}

/** A read snapshot of the SQLite file of a data dir (which must exist). */
export function sqliteSnapshot(dataDir: string): StoreSnapshot {
  const db = openSqlite(dataDir, {readonly: true})
  db.exec('BEGIN')
  // The snapshot starts at the first read, not at BEGIN: read now so every table is of one moment.
  db.prepare('SELECT count(*) FROM sqlite_master').get()
  return {
    driver: 'sqlite',
    migrations: async () => migrationsOf(db),
    tables: async () => carriedTables(db),
    sql: portOf(db),
    count: async (table, scope) => {
      const {where, params} = scoped(table.name, scope)
      return (db.prepare(`SELECT count(*) AS n FROM ${quote(table.name)}${where}`).get(...params) as {n: number}).n
    },
    async* rows(table, batchSize, scope) {
      const pk = columnsOf(db, table.name).filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => quote(c.name))
      const {where, params} = scoped(table.name, scope)
      const select = `SELECT ${table.columns.map(quote).join(', ')} FROM ${quote(table.name)}`
      const key = pk.length === 1 ? table.columns.map(quote).indexOf(pk[0]!) : -1
      if (key >= 0 && !scope) {
        // A whole table by key ranges, a batch a call: one step into the driver for a batch, not one for each row. (An account's
        // rows stay one query: its filter could lead the planner to an index that sorts the rows again for every range.)
        const first = db.prepare(`${select}${where} ORDER BY ${pk[0]} LIMIT ${batchSize}`).raw(true)
        const next = db.prepare(`${select}${where ? `${where} AND` : ' WHERE'} ${pk[0]} > ? ORDER BY ${pk[0]} LIMIT ${batchSize}`).raw(true)
        let batch = first.all(...params) as unknown[][]
        while (batch.length) {
          for (const row of batch) for (let i = 0; i < row.length; i++) if (typeof row[i] !== 'string' && typeof row[i] !== 'number' && row[i] !== null) row[i] = cell(row[i])
          yield batch as CellValue[][]
          if (batch.length < batchSize) break
          batch = next.all(...params, batch[batch.length - 1]![key]) as unknown[][]
        }
        return
      }
      const statement = db.prepare(`${select}${where} ORDER BY ${pk.length ? pk.join(', ') : 'rowid'}`).raw(true)
      let batch: CellValue[][] = []
      for (const row of statement.iterate(...params) as Iterable<unknown[]>) {
        batch.push(row.map(cell))
        if (batch.length >= batchSize) {
          yield batch
          batch = []
        }
      }
      if (batch.length) yield batch
    },
    async* lines(table, batchSize) {
      const pk = columnsOf(db, table.name).filter((c) => c.pk > 0).map((c) => quote(c.name))
      const json = `json_array(${table.columns.map(quote).join(', ')})`
      if (pk.length !== 1) {
        // A composite key (small tables): rows() in key order, each made a line the same way.
        const all = db.prepare(`SELECT ${json} FROM ${quote(table.name)} ORDER BY ${pk.length ? pk.join(', ') : 'rowid'}`).pluck()
        let batch: string[] = []
        for (const line of all.iterate() as Iterable<string>) {
          batch.push(line)
          if (batch.length >= batchSize) {
            yield batch
            batch = []
          }
        }
        if (batch.length) yield batch
        return
      }
      // SQLite writes each row's JSON array itself (json_array: text escaped as JSON, integers exact, reals
      // to 17 significant digits, as JSON.stringify would give them back); key ranges, a batch a driver call.
      const first = db.prepare(`SELECT ${pk[0]}, ${json} FROM ${quote(table.name)} ORDER BY ${pk[0]} LIMIT ${batchSize}`).raw(true)
      const next = db.prepare(`SELECT ${pk[0]}, ${json} FROM ${quote(table.name)} WHERE ${pk[0]} > ? ORDER BY ${pk[0]} LIMIT ${batchSize}`).raw(true)
      let batch = first.all() as [unknown, string][]
      while (batch.length) {
        yield batch.map((r) => r[1])
        if (batch.length < batchSize) break
        batch = next.all(batch[batch.length - 1]![0]) as [unknown, string][]
      }
    },
    async close() {
      if (db.inTransaction) db.exec('COMMIT')
      db.close()
    },
  }
}

/**
 * What the triggers of the carried tables derive, rebuilt in bulk after a bulk load: the record
 * counts and the queue of the full-text indexer (the server's indexer then indexes every record).
 */
const REBUILD_DERIVED = [
  'DELETE FROM db_record_counts',
  "INSERT INTO db_record_counts (db_id, table_key, n) SELECT db_id, coalesce(table_name, ''), count(*) FROM db_records GROUP BY db_id, coalesce(table_name, '')",
  'INSERT OR IGNORE INTO db_records_fts_pending (id) SELECT id FROM db_records',
]

/** A loader into the SQLite file of a data dir (created and migrated first); one transaction. */
export function sqliteLoader(dataDir: string): StoreLoader {
  const db = openSqlite(dataDir)
  db.exec('BEGIN IMMEDIATE')
  const statements = new Map<string, ReturnType<Sqlite['prepare']>>()
  // The next id of each table (the write transaction excludes every other writer: max + 1 onwards is free).
  const nextIds = new Map<string, number>()
  let deferred: {type: string; sql: string}[] | undefined
  return {
    async bulkLoad() {
      const names = carriedTables(db).map((t) => t.name)
      const rows = db.prepare(`SELECT type, name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL
        AND tbl_name IN (${names.map(() => '?').join(', ')}) ORDER BY type DESC, name`).all(...names) as {type: string; name: string; sql: string}[]
      for (const row of rows) db.exec(`DROP ${row.type === 'trigger' ? 'TRIGGER' : 'INDEX'} ${quote(row.name)}`)
      deferred = rows
    },
    driver: 'sqlite',
    sql: portOf(db),
    async newIds(table, column, n) {
      let next = nextIds.get(table)
      if (next === undefined) next = Number((db.prepare(`SELECT max(${quote(column)}) AS m FROM ${quote(table)}`).get() as {m: number | null}).m ?? 0) + 1
      nextIds.set(table, next + n)
      return Array.from({length: n}, (_, i) => next! + i)
    },
    async lock() {},
    migrations: async () => migrationsOf(db),
    tables: async () => carriedTables(db),
    async isEmpty() {
      return carriedTables(db).every((t) => !db.prepare(`SELECT 1 FROM ${quote(t.name)} LIMIT 1`).get())
    },
    async clear() {
      for (const table of carriedTables(db).reverse()) db.prepare(`DELETE FROM ${quote(table.name)}`).run()
    },
    async insert(table, rows, options) {
      const key = `${table.name}(${table.columns.join(',')})${options?.skipExisting ? ' skip' : ''}`
      let statement = statements.get(key)
      if (!statement) {
        statement = db.prepare(`INSERT INTO ${quote(table.name)} (${table.columns.map(quote).join(', ')}) VALUES (${table.columns.map(() => '?').join(', ')})` +
          (options?.skipExisting ? ' ON CONFLICT DO NOTHING' : ''))
        statements.set(key, statement)
      }
      for (const row of rows) statement.run(row)
    },
    async commit() {
      if (deferred) {
        db.pragma('cache_size = -262144') // 256 MB to sort the index entries in
        for (const {sql} of deferred.filter((r) => r.type === 'index')) db.exec(sql)
        const existing = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {name: string}[]).map((r) => r.name))
        if (['db_records', 'db_record_counts', 'db_records_fts_pending'].every((t) => existing.has(t))) for (const sql of REBUILD_DERIVED) db.exec(sql)
        for (const {sql} of deferred.filter((r) => r.type === 'trigger')) db.exec(sql)
      }
      db.exec('COMMIT')
      db.close()
    },
    async rollback() {
      if (db.open) {
        if (db.inTransaction) db.exec('ROLLBACK')
        db.close()
      }
    },
  }
}
