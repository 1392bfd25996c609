import type {DbInput} from '../../core/dbs/db.js'
import type {QuerySpec} from '../../core/dbs/query.js'
import {INDEX_COLUMNS} from '../../core/dbs/schema.js'
import {validation} from '../../core/errors.js'
import {publicDbFull} from '../../core/quotas.js'
import {
  DB_BY_ID, DB_BY_ID_NO_COUNT, DB_LIST, DB_SELECT_NO_COUNT, type DbRow, INDEX_LIST, indexParams, RECORD_COLUMNS, recordColumn,
  type RecordRow, tableNameOf, toDb, toRecordView, UPDATE_RECORD,
} from '../dbs/rows.js'
import type {DbsRepo, DbView, Indexer, RecordView, RecordWrite, TableUsage} from '../dbs/types.js'
import {deepFreeze} from '../cache-entries.js'
import {isRowId, isUniqueViolation, pgCode, type PgDb, PgEpochCache, type Q} from './connection.js'
import {likeEscape} from '../like-escape.js'

const now = () => new Date().toISOString()
/** A database without tables keeps its records under table_name '' (indexable, unlike IS NOT DISTINCT FROM). */
const tableKey = (tableName: string | null) => tableName ?? ''
const rowParams = (accountId: number, dbId: number, r: RecordWrite, t: string) =>
  [accountId, dbId, tableKey(r.tableName), JSON.stringify(r.data), ...indexParams(r.index), t, t]
/** Parameter types of one inserted row (an INSERT … SELECT does not infer them from the columns). */
const ROW_CASTS = ['bigint', 'bigint', 'text', 'json', 'text', 'text', 'text', 'double precision', 'double precision', 'text', 'text', 'text', 'text']
const valuesRow = `(${ROW_CASTS.map((t) => `?::${t}`).join(', ')})`
/** Rows per INSERT of an import (well under PostgreSQL's 65,535 bound parameters). */
const IMPORT_CHUNK = 500

/** A field of the record's data as JSON (the name is bound, never spliced). */
const FIELD = 'r.data -> (?::text)'

/**
 * JSON values an exact filter matches, as SQLite's json_extract compares them: a string only a
 * string, a number any equal number, and 1 / 0 also true / false.
 */
function jsonCandidates(values: (string | number)[]): string[] {
  const out = new Set<string>()
  for (const v of values) {
    if (typeof v === 'string') out.add(JSON.stringify(v))
    else if (Number.isFinite(v)) {
      out.add(JSON.stringify(v))
      if (v === 1) out.add('true')
      if (v === 0) out.add('false')
    }
  }
  return [...out]
}

export class PgDbsRepo implements DbsRepo {
  /** Record routes load their db on every request: read once per cache epoch (a schema changed by another instance is seen at the next request). */
  private readonly withoutCount: PgEpochCache<DbView>

  constructor(private readonly db: PgDb) {
    this.withoutCount = new PgEpochCache(db)
  }

  async list(accountId: number): Promise<DbView[]> {
    return (await this.db.all<DbRow>(DB_LIST, [accountId])).map(toDb)
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
      row = await this.db.get<DbRow>(select.id, [accountId, id])
    } else row = await this.db.get<DbRow>(select.code, [accountId, idOrCode])
    return row ? toDb(row) : null
  }

  async findByCode(code: string, accountId?: number): Promise<(DbView & {account_id: number}) | null> {
    const row = accountId === undefined
      ? await this.db.get<DbRow>(`${DB_SELECT_NO_COUNT} WHERE d.code = ? ORDER BY d.public_methods::text = '{}', d.id LIMIT 1`, [code])
      : await this.db.get<DbRow>(`${DB_SELECT_NO_COUNT} WHERE d.code = ? AND d.account_id = ?`, [code, accountId])
    return row ? {...toDb(row), account_id: row.account_id} : null
  }

  /** A code is unique in its account; a db with public methods also needs a code no other account's public db has. */
  private async codeTaken(q: Q, accountId: number, code: string | null, exceptId: number, isPublic = false): Promise<void> {
    if (code === null) return
    // Every db code change takes a transaction lock on the code: a public code claimed in two accounts
    // at once (two instances) is checked one after the other, as the unique index only spans one account.
    await q.get("SELECT pg_advisory_xact_lock(hashtext('svc:db_code:' || ?::text))", [code])
    if (await q.get('SELECT 1 FROM dbs WHERE account_id = ? AND code = ? AND id != ?', [accountId, code, exceptId]) ||
      (isPublic && await q.get(`SELECT 1 FROM dbs WHERE code = ? AND account_id != ? AND public_methods::text != '{}'`, [code, accountId]))) {
      throw validation({code: ['has already been taken']})
    }
  }

  /** The check gives the usual 422; the unique index (dbs_account_code) decides a race between instances. */
  private async write<T>(fn: (q: Q) => Promise<T>): Promise<T> {
    try {
      return await this.db.tx(fn)
    } catch (e) {
      if (isUniqueViolation(e)) throw validation({code: ['has already been taken']})
      throw e
    }
  }

  async create(accountId: number, input: DbInput): Promise<DbView> {
    const id = await this.write(async (q) => {
      await this.codeTaken(q, accountId, input.code, 0, Object.keys(input.public_methods).length > 0)
      const t = now()
      return (await q.get<{id: number}>(
        `INSERT INTO dbs (account_id, name, code, app_id, schema, public_methods, fields, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [accountId, input.name, input.code, input.app_id, input.schema === null ? null : JSON.stringify(input.schema),
          JSON.stringify(input.public_methods), JSON.stringify(input.fields), t, t],
      ))!.id
    })
    return (await this.get(accountId, String(id)))!
  }

  async update(accountId: number, id: number, input: DbInput, reindex?: Indexer, check?: (current: DbView) => void): Promise<DbView | null> {
    if (!isRowId(id)) return null
    const found = await this.write(async (q) => {
      // FOR UPDATE: two schema changes of one db (on two instances) reindex one after the other.
      if (!(await q.get('SELECT 1 FROM dbs WHERE account_id = ? AND id = ? FOR UPDATE', [accountId, id]))) return false
      if (check) check(toDb((await q.get<DbRow>(DB_BY_ID_NO_COUNT.id, [accountId, id]))!))
      await this.codeTaken(q, accountId, input.code, id, Object.keys(input.public_methods).length > 0)
      await q.run(
        `UPDATE dbs SET name = ?, code = ?, app_id = ?, schema = ?, public_methods = ?, fields = ?, updated_at = ?
         WHERE account_id = ? AND id = ?`,
        [input.name, input.code, input.app_id, input.schema === null ? null : JSON.stringify(input.schema),
          JSON.stringify(input.public_methods), JSON.stringify(input.fields), now(), accountId, id],
      )
      if (reindex) await this.reindex(q, accountId, id, reindex)
      return true
    })
    return found ? this.get(accountId, String(id)) : null
  }

  /** Rebuilds the index columns of every record of a db, 1,000 rows a statement (inside the caller's transaction). */
  private async reindex(q: Q, accountId: number, dbId: number, indexer: Indexer): Promise<void> {
    const width = INDEX_COLUMNS.length + 1
    const casts = ['::bigint', ...ROW_CASTS.slice(4, 4 + INDEX_COLUMNS.length).map((t) => `::${t}`)]
    let after = 0
    for (;;) {
      const rows = await q.all<{id: number; table_name: string; data: string}>(
        'SELECT id, table_name, data FROM db_records WHERE account_id = ? AND db_id = ? AND id > ? ORDER BY id LIMIT 1000 FOR UPDATE',
        [accountId, dbId, after])
      if (rows.length === 0) break
      const params: unknown[] = []
      for (const row of rows) {
        params.push(row.id, ...indexParams(indexer(tableNameOf(row.table_name), JSON.parse(row.data))))
      }
      const values = rows.map(() => `(${Array.from({length: width}, (_, i) => `?${casts[i]}`).join(', ')})`).join(', ')
      await q.run(
        `UPDATE db_records r SET ${INDEX_COLUMNS.map((c) => `${c} = v.${c}`).join(', ')}
         FROM (VALUES ${values}) AS v(id, ${INDEX_LIST}) WHERE r.id = v.id`,
        params)
      after = rows[rows.length - 1]!.id
    }
  }

  async delete(accountId: number, id: number): Promise<boolean> {
    if (!isRowId(id)) return false
    return this.db.tx(async (q) => {
      if (!(await q.get('SELECT 1 FROM dbs WHERE account_id = ? AND id = ? FOR UPDATE', [accountId, id]))) return false
      await q.run('DELETE FROM db_records WHERE account_id = ? AND db_id = ?', [accountId, id])
      await q.run('DELETE FROM dbs WHERE account_id = ? AND id = ?', [accountId, id])
      return true
    })
  }

  async usage(accountId: number, dbId: number, fieldsByTable: Map<string | null, string[]>): Promise<TableUsage[]> {
    const counts = await this.db.all<{table_name: string; n: number}>(
      'SELECT table_name, count(*) AS n FROM db_records WHERE account_id = ? AND db_id = ? GROUP BY table_name ORDER BY table_name',
      [accountId, dbId])
    const tables = new Map<string | null, number>(counts.map((r) => [tableNameOf(r.table_name), r.n]))
    for (const t of fieldsByTable.keys()) if (!tables.has(t)) tables.set(t, 0)
    const out: TableUsage[] = []
    for (const [tableName, n] of tables) {
      const fields = fieldsByTable.get(tableName) ?? []
      const usage: Record<string, number> = {}
      if (fields.length && n > 0) {
        const sums = fields.map((_, i) => `count(*) FILTER (WHERE json_typeof(${FIELD}) <> 'null') AS f${i}`)
        const row = (await this.db.get<Record<string, number>>(
          `SELECT ${sums.join(', ')} FROM db_records r WHERE r.account_id = ? AND r.db_id = ? AND r.table_name = ?`,
          [...fields, accountId, dbId, tableKey(tableName)]))!
        fields.forEach((f, i) => (usage[f] = row[`f${i}`] ?? 0))
      } else for (const f of fields) usage[f] = 0
      out.push({table_name: tableName, records_count: n, fields: usage})
    }
    return out
  }

  async createRecord(accountId: number, dbId: number, record: RecordWrite, maxRecords?: number): Promise<RecordView> {
    if (maxRecords !== undefined) return this.createRecordUnder(accountId, dbId, record, maxRecords)
    const t = now()
    // One statement: the db must still exist in the account (a concurrent delete takes its records
    // with it, and the foreign key refuses a record of a db deleted meanwhile).
    const row = await this.insertChecked(() => this.db.get<RecordRow>(
      `INSERT INTO db_records (account_id, db_id, table_name, data, ${INDEX_LIST}, created_at, updated_at)
       SELECT ${valuesRow.slice(1, -1)} WHERE EXISTS (SELECT 1 FROM dbs WHERE account_id = ? AND id = ?)
       RETURNING ${RECORD_COLUMNS}`,
      [...rowParams(accountId, dbId, record, t), accountId, dbId]))
    if (!row) throw validation({db: ['no longer exists']})
    return toRecordView(row)
  }

  /** The count and the insert under the db row's lock (FOR UPDATE): parallel creates (on any instance) queue there. */
  private createRecordUnder(accountId: number, dbId: number, record: RecordWrite, maxRecords: number): Promise<RecordView> {
    return this.db.tx(async (q) => {
      if (!(await q.get('SELECT 1 FROM dbs WHERE account_id = ? AND id = ? FOR UPDATE', [accountId, dbId]))) throw validation({db: ['no longer exists']})
      const counted = await q.get<{n: string}>('SELECT count(*) AS n FROM db_records WHERE db_id = ?', [dbId])
      if (Number(counted!.n) >= maxRecords) throw publicDbFull(maxRecords)
      const row = await q.get<RecordRow>(`INSERT INTO db_records (account_id, db_id, table_name, data, ${INDEX_LIST}, created_at, updated_at)
        VALUES ${valuesRow} RETURNING ${RECORD_COLUMNS}`, rowParams(accountId, dbId, record, now()))
      return toRecordView(row!)
    })
  }

  private async insertChecked<T>(insert: () => Promise<T>): Promise<T> {
    try {
      return await insert()
    } catch (e) {
      if (pgCode(e) === '23503') throw validation({db: ['no longer exists']})
      throw e
    }
  }

  async createRecords(accountId: number, dbId: number, records: RecordWrite[]): Promise<number> {
    return this.insertChecked(() => this.db.tx(async (q) => {
      if (!(await q.get('SELECT 1 FROM dbs WHERE account_id = ? AND id = ? FOR SHARE', [accountId, dbId]))) {
        throw validation({db: ['no longer exists']})
      }
      const t = now()
      for (let i = 0; i < records.length; i += IMPORT_CHUNK) {
        const chunk = records.slice(i, i + IMPORT_CHUNK)
        await q.run(
          `INSERT INTO db_records (account_id, db_id, table_name, data, ${INDEX_LIST}, created_at, updated_at)
           VALUES ${chunk.map(() => valuesRow).join(', ')}`,
          chunk.flatMap((r) => rowParams(accountId, dbId, r, t)))
      }
      return records.length
    }))
  }

  private async readRecord(q: Q, accountId: number, dbId: number, id: number, scope?: QuerySpec['scope'], lock = ''): Promise<RecordView | null> {
    if (scope && scope.value === '') return null
    if (!isRowId(id)) return null
    const row = scope
      ? await q.get<RecordRow>(
        `SELECT ${RECORD_COLUMNS} FROM db_records r WHERE account_id = ? AND db_id = ? AND id = ?
           AND json_typeof(${FIELD}) = 'string' AND r.data ->> (?::text) = ?${lock}`,
        [accountId, dbId, id, scope.field, scope.field, scope.value])
      : await q.get<RecordRow>(`SELECT ${RECORD_COLUMNS} FROM db_records WHERE account_id = ? AND db_id = ? AND id = ?${lock}`,
        [accountId, dbId, id])
    return row ? toRecordView(row) : null
  }

  async getRecord(accountId: number, dbId: number, id: number, scope?: QuerySpec['scope']): Promise<RecordView | null> {
    return this.readRecord(this.db, accountId, dbId, id, scope)
  }

  async updateRecord(
    accountId: number, dbId: number, id: number, build: (existing: RecordView) => RecordWrite, scope?: QuerySpec['scope'],
  ): Promise<RecordView | null> {
    return this.db.tx(async (q) => {
      // FOR UPDATE: a concurrent update of the same record (another instance) waits, then builds on this one's result.
      const existing = await this.readRecord(q, accountId, dbId, id, scope, ' FOR UPDATE')
      if (!existing) return null
      const next = build(existing)
      const row = await q.get<RecordRow>(UPDATE_RECORD,
        [tableKey(next.tableName), JSON.stringify(next.data), ...indexParams(next.index), now(), accountId, dbId, id])
      return row ? toRecordView(row) : null
    })
  }

  async deleteRecord(
    accountId: number, dbId: number, id: number, scope?: QuerySpec['scope'], check?: (existing: RecordView) => void,
  ): Promise<boolean> {
    if (scope && scope.value === '') return false
    if (!isRowId(id)) return false
    if (check) {
      // If-Match: the record is read and locked, checked, then deleted in one transaction.
      return this.db.tx(async (q) => {
        const existing = await this.readRecord(q, accountId, dbId, id, scope, ' FOR UPDATE')
        if (!existing) return false
        check(existing)
        return (await q.run('DELETE FROM db_records WHERE account_id = ? AND db_id = ? AND id = ?', [accountId, dbId, id])) > 0
      })
    }
    const changed = scope
      ? await this.db.run(
        `DELETE FROM db_records r WHERE account_id = ? AND db_id = ? AND id = ? AND json_typeof(${FIELD}) = 'string' AND r.data ->> (?::text) = ?`,
        [accountId, dbId, id, scope.field, scope.field, scope.value])
      : await this.db.run('DELETE FROM db_records WHERE account_id = ? AND db_id = ? AND id = ?', [accountId, dbId, id])
    return changed > 0
  }

  async query(accountId: number, dbId: number, spec: QuerySpec): Promise<RecordView[]> {
    const {sql, params} = buildSelect(accountId, dbId, spec)
    if (!sql) return []
    return (await this.db.all<RecordRow>(sql, params)).map(toRecordView)
  }
}

/** SQLite's LIKE (ASCII letters either case, ESCAPE '\') of a text expression against a bound pattern. */
const foldedLike = (expr: string) => `svc_fold(${expr}) LIKE svc_fold(?) ESCAPE '\\'`

/**
 * The SELECT of a query spec, giving SQLite's answers: identifiers from whitelists, every value
 * and field name bound. `q` narrows by the pg_trgm index first (each literal run as ILIKE on the
 * record's search text, a superset), then checks SQLite's LIKE exactly.
 */
export function buildSelect(accountId: number, dbId: number, spec: QuerySpec): {sql: string | null; params: unknown[]} {
  const where = ['r.account_id = ?', 'r.db_id = ?']
  const params: unknown[] = [accountId, dbId]
  if (spec.tableName !== undefined) {
    where.push('r.table_name = ?')
    params.push(tableKey(spec.tableName))
  }
  if (spec.scope) {
    if (spec.scope.value === '') return {sql: null, params: []}
    where.push(`json_typeof(${FIELD}) = 'string' AND r.data ->> (?::text) = ?`)
    params.push(spec.scope.field, spec.scope.field, spec.scope.value)
  }
  if (spec.afterId !== undefined) {
    where.push('r.id > ?')
    params.push(spec.afterId)
  }
  for (const f of spec.filters) {
    if (f.op === 'like') {
      where.push(foldedLike(`svc_scalar(${FIELD})`))
      params.push(f.field.name, f.values[0])
      continue
    }
    if (f.field.column && f.columnValue !== undefined) {
      where.push(`${recordColumn(f.field.column)} = ?`)
      params.push(f.columnValue)
    }
    if (!(f.field.column && f.columnExact)) {
      where.push(`(${FIELD})::jsonb = ANY(?::jsonb[])`)
      params.push(f.field.name, jsonCandidates(f.values))
    }
  }
  if (spec.q) {
    if (spec.useFts !== false) {
      for (const literal of spec.q.literals) {
        where.push('r.search_text ILIKE ?')
        params.push(`%${likeEscape(literal)}%`)
      }
    }
    if (spec.q.fields === 'all') {
      where.push(`EXISTS (SELECT 1 FROM json_each(r.data) j WHERE json_typeof(j.value) IN ('string', 'number') AND ${foldedLike('svc_scalar(j.value)')})`)
      params.push(spec.q.pattern)
    } else {
      where.push(`(${spec.q.fields.map(() => foldedLike(`svc_scalar(${FIELD})`)).join(' OR ')})`)
      for (const f of spec.q.fields) params.push(f.name, spec.q.pattern)
    }
  }
  const dir = spec.desc ? 'DESC' : 'ASC'
  // SQLite puts NULL first in ascending order, last in descending.
  const nulls = spec.desc ? 'NULLS LAST' : 'NULLS FIRST'
  let order: string
  if (spec.sort.kind === 'column') {
    order = spec.sort.column === 'id' ? `r.id ${dir}` : `${recordColumn(spec.sort.column)} ${dir} ${nulls}, r.id ${dir}`
  } else {
    // Numbers before text, text by code point (COLLATE "C"), as SQLite orders json_extract values.
    order = [`svc_sort_rank(${FIELD}) ${dir}`, `svc_sort_num(${FIELD}) ${dir}`, `svc_sort_text(${FIELD}) COLLATE "C" ${dir}`, `r.id ${dir}`].join(', ')
    params.push(spec.sort.field, spec.sort.field, spec.sort.field)
  }
  params.push(spec.limit, spec.offset)
  return {
    sql: `SELECT r.id, r.table_name, r.data, r.created_at, r.updated_at FROM db_records r WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ? OFFSET ?`,
    params,
  }
}
