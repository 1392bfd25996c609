import type {DbInput} from '../../core/dbs/db.js'
import type {QuerySpec} from '../../core/dbs/query.js'
import {INDEX_COLUMNS} from '../../core/dbs/schema.js'
import {validation} from '../../core/errors.js'
import {publicDbFull} from '../../core/quotas.js'
import {
  DB_BY_ID, DB_BY_ID_NO_COUNT, DB_LIST, DB_SELECT_NO_COUNT, type DbRow, INDEX_LIST, indexParams, RECORD_COLUMNS, recordColumn,
  type RecordRow, tableNameOf, toDb, toRecordView, UPDATE_RECORD,
} from '../dbs/rows.js'
import {inRanges} from '../dbs/ranges.js'
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

  async update(accountId: number, id: number, input: DbInput, reindex?: Indexer): Promise<DbView | null> {
    if (!isRowId(id)) return null
    const found = await this.write(async (q) => {
      // FOR UPDATE: two schema changes of one db (on two instances) reindex one after the other.
      if (!(await q.get('SELECT 1 FROM dbs WHERE account_id = ? AND id = ? FOR UPDATE', [accountId, id]))) return false
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

  async deleteRecord(accountId: number, dbId: number, id: number, scope?: QuerySpec['scope']): Promise<boolean> {
    if (scope && scope.value === '') return false
    if (!isRowId(id)) return false
    const changed = scope
      ? await this.db.run(
        `DELETE FROM db_records r WHERE account_id = ? AND db_id = ? AND id = ? AND json_typeof(${FIELD}) = 'string' AND r.data ->> (?::text) = ?`,
        [accountId, dbId, id, scope.field, scope.field, scope.value])
      : await this.db.run('DELETE FROM db_records WHERE account_id = ? AND db_id = ? AND id = ?', [accountId, dbId, id])
    return changed > 0
  }

  async query(accountId: number, dbId: number, spec: QuerySpec): Promise<RecordView[]> {
    const parts = queryParts(accountId, dbId, spec)
    if (!parts) return []
    const walk = walkInOrder(parts, spec)
    if (walk) {
      const rows = await this.db.all<RecordRow>(walk.sql, walk.params)
      // Enough hits in the walk's window: they are the first ones in the order, as the full query would find them.
      if (rows.length >= walk.needed) return rows.slice(spec.offset).map(toRecordView)
    }
    const full = selectOf(parts, spec)
    return (await this.db.all<RecordRow>(full.sql, full.params)).map(toRecordView)
  }
}

/** SQLite's LIKE (ASCII letters either case, ESCAPE '\') of a text expression against a bound pattern. */
const foldedLike = (expr: string) => `svc_fold(${expr}) LIKE svc_fold(?) ESCAPE '\\'`

/** A list of SQL conditions (joined with AND) and their bound values, in order. */
interface Conditions {where: string[]; params: unknown[]}

/** A query spec's SQL: the conditions on the record's place and fields, those of `q`, and the order. */
interface QueryParts {base: Conditions; text: Conditions; order: string; orderParams: unknown[]}

/**
 * The parts of a query spec's SELECT, giving SQLite's answers: identifiers from whitelists, every
 * value and field name bound. `q` narrows by the pg_trgm index first (each literal run as ILIKE on
 * the record's search text, a superset), then checks SQLite's LIKE exactly. Null: no record can match.
 */
function queryParts(accountId: number, dbId: number, spec: QuerySpec): QueryParts | null {
  const where = ['r.account_id = ?', 'r.db_id = ?']
  const params: unknown[] = [accountId, dbId]
  if (spec.tableName !== undefined) {
    where.push('r.table_name = ?')
    params.push(tableKey(spec.tableName))
  }
  if (spec.scope) {
    if (spec.scope.value === '') return null
    where.push(`json_typeof(${FIELD}) = 'string' AND r.data ->> (?::text) = ?`)
    params.push(spec.scope.field, spec.scope.field, spec.scope.value)
  }
  if (spec.afterId !== undefined) {
    where.push('r.id > ?')
    params.push(spec.afterId)
  }
  for (const f of spec.filters) {
    if (f.op === 'like') {
      if (f.field.column && f.columnRanges) {
        const ranges = inRanges(recordColumn(f.field.column), f.columnRanges)
        where.push(ranges.sql)
        params.push(...ranges.params)
      }
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
  const text: Conditions = {where: [], params: []}
  if (spec.q) {
    if (spec.useFts !== false) {
      for (const literal of spec.q.literals) {
        text.where.push('r.search_text ILIKE ?')
        text.params.push(`%${likeEscape(literal)}%`)
      }
    }
    if (spec.q.fields === 'all') {
      text.where.push(`EXISTS (SELECT 1 FROM json_each(r.data) j WHERE json_typeof(j.value) IN ('string', 'number') AND ${foldedLike('svc_scalar(j.value)')})`)
      text.params.push(spec.q.pattern)
    } else {
      text.where.push(`(${spec.q.fields.map(() => foldedLike(`svc_scalar(${FIELD})`)).join(' OR ')})`)
      for (const f of spec.q.fields) text.params.push(f.name, spec.q.pattern)
    }
  }
  const dir = spec.desc ? 'DESC' : 'ASC'
  // SQLite puts NULL first in ascending order, last in descending.
  const nulls = spec.desc ? 'NULLS LAST' : 'NULLS FIRST'
  if (spec.sort.kind === 'column') {
    const order = spec.sort.column === 'id' ? `r.id ${dir}` : `${recordColumn(spec.sort.column)} ${dir} ${nulls}, r.id ${dir}`
    return {base: {where, params}, text, order, orderParams: []}
  }
  // Numbers before text, text by code point (COLLATE "C"), as SQLite orders json_extract values.
  const order = [`svc_sort_rank(${FIELD}) ${dir}`, `svc_sort_num(${FIELD}) ${dir}`, `svc_sort_text(${FIELD}) COLLATE "C" ${dir}`, `r.id ${dir}`].join(', ')
  return {base: {where, params}, text, order, orderParams: [spec.sort.field, spec.sort.field, spec.sort.field]}
}

const RECORD_SELECT = 'SELECT r.id, r.table_name, r.data, r.created_at, r.updated_at FROM'

/** The whole query: every condition, sorted, one page. */
function selectOf(parts: QueryParts, spec: QuerySpec): {sql: string; params: unknown[]} {
  const where = [...parts.base.where, ...parts.text.where]
  return {
    sql: `${RECORD_SELECT} db_records r WHERE ${where.join(' AND ')} ORDER BY ${parts.order} LIMIT ? OFFSET ?`,
    params: [...parts.base.params, ...parts.text.params, ...parts.orderParams, spec.limit, spec.offset],
  }
}

/**
 * Records a `q` walk reads in order before it gives up. A fragment whose trigrams are common has
 * hits all along the table: walking the records newest-first (an index scan in the sort order)
 * finds a page of them within a few hundred rows and stops, where the trigram bitmap reads and
 * sorts every candidate (100 ms for a 5-letter fragment at 1M records). A rare fragment finds too
 * few in the window: the trigram index answers it, after a walk that cost ~2-4 ms at most.
 * docs/dbs.md "Search on PostgreSQL" has the measures behind the number.
 */
export const WALK_BUDGET = 4000
/** Pages reaching further than this (offset + limit) skip the walk: its window would hold too few of them. */
const WALK_MAX_REACH = 200
/** Sorts an index gives in order (a walk must read rows in the query's order). */
const WALKABLE = new Set<string>(['id', ...INDEX_COLUMNS])

/**
 * The first WALK_BUDGET records in the query's order (every condition but `q`'s), then `q`'s
 * conditions on them, up to offset + limit hits. When it returns that many, they are the answer's
 * first rows (the window is a prefix of the order); fewer, and the full query decides. Null when a
 * walk cannot help: no trigram literal, a sort no index follows, a page far down.
 */
export function walkInOrder(parts: QueryParts, spec: QuerySpec): {sql: string; params: unknown[]; needed: number} | null {
  const needed = spec.offset + spec.limit
  if (!spec.q || !spec.q.literals.length || spec.useFts === false || spec.tableName === undefined) return null
  if (spec.sort.kind !== 'column' || !WALKABLE.has(spec.sort.column) || needed > WALK_MAX_REACH) return null
  const window = `SELECT * FROM db_records r WHERE ${parts.base.where.join(' AND ')} ORDER BY ${parts.order} LIMIT ${WALK_BUDGET}`
  return {
    sql: `${RECORD_SELECT} (${window}) r WHERE ${parts.text.where.join(' AND ')} ORDER BY ${parts.order} LIMIT ?`,
    params: [...parts.base.params, ...parts.text.params, needed],
    needed,
  }
}
