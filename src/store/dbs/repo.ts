/**
 * The dbs area's repository, written once over the SQL port (src/store/sql/port.ts): dbs and
 * their records. What is the driver's own (how a record's table name is stored and its fields are
 * read, the record search, the upkeep of SQLite's full-text index) it asks of a `DbsSearch`
 * (sqlite/dbs-search.ts, pg/dbs-search.ts).
 */
import type {DbInput} from '../../core/dbs/db.js'
import {INDEX_COLUMNS} from '../../core/dbs/schema.js'
import {validation} from '../../core/errors.js'
import {deepFreeze} from '../cache-entries.js'
import {type EpochCache, isRowId, type SqlPort, type TxBody, type TxSql, txUnique} from '../sql/port.js'
import {DB_BY_ID, DB_BY_ID_NO_COUNT, DB_LIST, DB_SELECT_NO_COUNT, type DbRow, indexParams, indexType, tableNameOf, toDb} from './rows.js'
import type {DbsRepo, DbsSearch, DbView, Indexer, TableUsage} from './types.js'

const now = () => new Date().toISOString()
const codeTaken = () => validation({code: ['has already been taken']})
/** Records whose index columns one statement of a reindex rewrites. */
const REINDEX_PAGE = 1000

export abstract class SqlDbsRepoBase implements Pick<DbsRepo, 'list' | 'get' | 'findByCode' | 'create' | 'update' | 'delete' | 'usage'> {
  /** Record routes load their db on every request: read once per cache epoch, shared read-only. */
  private readonly withoutCount: EpochCache<DbView>

  constructor(protected readonly sql: SqlPort, protected readonly search: DbsSearch) {
    this.withoutCount = sql.epochCache()
  }

  async list(accountId: number): Promise<DbView[]> {
    return (await this.sql.all<DbRow>(DB_LIST, [accountId])).map(toDb)
  }

  async get(accountId: number, idOrCode: string, options: {count?: boolean} = {}): Promise<DbView | null> {
    if (options.count !== false) return this.read(DB_BY_ID, accountId, idOrCode)
    return this.withoutCount.get(`${accountId}:${idOrCode}`, async () => {
      const view = await this.read(DB_BY_ID_NO_COUNT, accountId, idOrCode)
      return view && deepFreeze(view)
    })
  }

  private async read(select: typeof DB_BY_ID, accountId: number, idOrCode: string): Promise<DbView | null> {
    let row: DbRow | undefined
    if (/^\d+$/.test(idOrCode)) {
      const id = Number(idOrCode)
      if (!isRowId(id)) return null
      row = await this.sql.get<DbRow>(select.id, [accountId, id])
    } else row = await this.sql.get<DbRow>(select.code, [accountId, idOrCode])
    return row ? toDb(row) : null
  }

  async findByCode(code: string, accountId?: number): Promise<(DbView & {account_id: number}) | null> {
    const row = accountId === undefined
      ? await this.sql.get<DbRow>(`${DB_SELECT_NO_COUNT} WHERE d.code = ? ORDER BY d.public_methods = '{}', d.id LIMIT 1`, [code])
      : await this.sql.get<DbRow>(`${DB_SELECT_NO_COUNT} WHERE d.code = ? AND d.account_id = ?`, [code, accountId])
    return row ? {...toDb(row), account_id: row.account_id} : null
  }

  async create(accountId: number, input: DbInput): Promise<DbView> {
    const id = await txUnique(this.sql, function* (q) {
      yield* assertCodeFree(q, accountId, input, 0)
      const t = now()
      return (yield* q.get<{id: number}>(
        `INSERT INTO dbs (account_id, name, code, app_id, schema, public_methods, fields, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [accountId, input.name, input.code, input.app_id, input.schema === null ? null : JSON.stringify(input.schema),
          JSON.stringify(input.public_methods), JSON.stringify(input.fields), t, t],
      ))!.id
    }, codeTaken)
    return (await this.get(accountId, String(id)))!
  }

  async update(accountId: number, id: number, input: DbInput, reindex?: Indexer, check?: (current: DbView) => void): Promise<DbView | null> {
    if (!isRowId(id)) return null
    const {forUpdate} = this.sql.dialect
    const reindexStatements = this.reindexStatements.bind(this)
    const found = await txUnique(this.sql, function* (q) {
      // forUpdate: two schema changes of one db (on two instances) reindex one after the other.
      if (!(yield* q.get(`SELECT 1 FROM dbs WHERE account_id = ? AND id = ?${forUpdate}`, [accountId, id]))) return false
      if (check) check(toDb((yield* q.get<DbRow>(DB_BY_ID_NO_COUNT.id, [accountId, id]))!))
      yield* assertCodeFree(q, accountId, input, id)
      yield* q.run(
        `UPDATE dbs SET name = ?, code = ?, app_id = ?, schema = ?, public_methods = ?, fields = ?, updated_at = ?
         WHERE account_id = ? AND id = ?`,
        [input.name, input.code, input.app_id, input.schema === null ? null : JSON.stringify(input.schema),
          JSON.stringify(input.public_methods), JSON.stringify(input.fields), now(), accountId, id],
      )
      if (reindex) yield* reindexStatements(q, accountId, id, reindex)
      return true
    }, codeTaken)
    return found ? this.get(accountId, String(id)) : null
  }

  /** Rebuilds the index columns of every record of a db, REINDEX_PAGE records a statement (inside the caller's transaction). */
  private* reindexStatements(q: TxSql, accountId: number, dbId: number, indexer: Indexer): TxBody<void> {
    const {forUpdate, typed} = this.sql.dialect
    const row = `(${[typed('bigint'), ...INDEX_COLUMNS.map((c) => typed(indexType(c)))].join(', ')})`
    // A VALUES list names its columns column1 (the id), column2...
    const set = INDEX_COLUMNS.map((c, i) => `${c} = v.column${i + 2}`).join(', ')
    let after = 0
    for (;;) {
      const rows = yield* q.all<{id: number; table_name: string | null; data: string}>(
        `SELECT id, table_name, data FROM db_records WHERE account_id = ? AND db_id = ? AND id > ? ORDER BY id LIMIT ${REINDEX_PAGE}${forUpdate}`,
        [accountId, dbId, after])
      if (rows.length === 0) break
      const params = rows.flatMap((r) => [r.id, ...indexParams(indexer(tableNameOf(r.table_name), JSON.parse(r.data)))])
      yield* q.run(`UPDATE db_records AS r SET ${set} FROM (VALUES ${rows.map(() => row).join(', ')}) AS v WHERE r.id = v.column1`, params)
      after = rows[rows.length - 1]!.id
    }
  }

  async delete(accountId: number, id: number): Promise<boolean> {
    if (!isRowId(id)) return false
    const {forUpdate} = this.sql.dialect
    return this.sql.tx(function* (q) {
      if (!(yield* q.get(`SELECT 1 FROM dbs WHERE account_id = ? AND id = ?${forUpdate}`, [accountId, id]))) return false
      yield* q.run('DELETE FROM db_records WHERE account_id = ? AND db_id = ?', [accountId, id])
      yield* q.run('DELETE FROM dbs WHERE account_id = ? AND id = ?', [accountId, id])
      return true
    })
  }

  async usage(accountId: number, dbId: number, fieldsByTable: Map<string | null, string[]>): Promise<TableUsage[]> {
    const counts = await this.sql.all<{table_name: string | null; n: number}>(
      'SELECT table_name, count(*) AS n FROM db_records WHERE account_id = ? AND db_id = ? GROUP BY table_name ORDER BY table_name',
      [accountId, dbId])
    const tables = new Map<string | null, number>(counts.map((r) => [tableNameOf(r.table_name), r.n]))
    for (const t of fieldsByTable.keys()) if (!tables.has(t)) tables.set(t, 0)
    const out: TableUsage[] = []
    for (const [tableName, n] of tables) {
      const fields = fieldsByTable.get(tableName) ?? []
      const usage: Record<string, number> = {}
      if (fields.length && n > 0) {
        const set = fields.map((f) => this.search.fieldSet(f))
        const row = (await this.sql.get<Record<string, number>>(
          `SELECT ${set.map((s, i) => `count(*) FILTER (WHERE ${s.sql}) AS f${i}`).join(', ')}
           FROM db_records r WHERE r.account_id = ? AND r.db_id = ? AND ${this.search.tableIs}`,
          [...set.flatMap((s) => s.params), accountId, dbId, this.search.tableKey(tableName)]))!
        fields.forEach((f, i) => (usage[f] = row[`f${i}`] ?? 0))
      } else for (const f of fields) usage[f] = 0
      out.push({table_name: tableName, records_count: n, fields: usage})
    }
    return out
  }
}

/**
 * A code is unique in its account; a db with public methods also needs a code no other account's
 * public db has. Every code change takes a transaction lock on the code: a public code claimed in
 * two accounts at once (two instances) is checked one after the other, as the unique index only
 * spans one account.
 */
function* assertCodeFree(q: TxSql, accountId: number, input: DbInput, exceptId: number): TxBody<void> {
  if (input.code === null) return
  yield* q.lock(`db_code:${input.code}`)
  if ((yield* q.get('SELECT 1 FROM dbs WHERE account_id = ? AND code = ? AND id != ?', [accountId, input.code, exceptId])) ||
    (Object.keys(input.public_methods).length > 0 &&
      (yield* q.get(`SELECT 1 FROM dbs WHERE code = ? AND account_id != ? AND public_methods != '{}'`, [input.code, accountId])))) {
    throw codeTaken()
  }
}
