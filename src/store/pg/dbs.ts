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
    const statements = searchStatements(accountId, dbId, spec)
    if (!statements) return []
    const {walk, full} = statements
    if (walk) {
      // A short walk first: enough hits, and they are the answer; none, and the fragment is rare
      // (the trigram index answers); a few, and a longer walk is worth it when their density says
      // it reaches a page within WALK_MAX rows.
      const needed = spec.offset + spec.limit
      const first = walk(WALK_PROBE)
      const probe = await this.db.all<RecordRow>(first.sql, first.params)
      if (probe.length >= needed) return probe.slice(spec.offset).map(toRecordView)
      const expected = probe.length && Math.ceil((needed * WALK_PROBE) / probe.length)
      if (expected && expected <= WALK_MAX) {
        const longer = walk(Math.min(expected * 2, WALK_MAX))
        const rows = await this.db.all<RecordRow>(longer.sql, longer.params)
        if (rows.length >= needed) return rows.slice(spec.offset).map(toRecordView)
      }
    }
    return (await this.db.all<RecordRow>(full.sql, full.params)).map(toRecordView)
  }
}

/** A statement with `?` placeholders and its bound values. */
interface Statement {sql: string; params: unknown[]}

/**
 * The statements of a query spec: the full query, and the walk over the first `budget` records in
 * the query's order when one can stop early (its rows are the answer's first ones when it returns
 * offset + limit of them). Null when no record can match.
 */
export function searchStatements(accountId: number, dbId: number, spec: QuerySpec): {walk: ((budget: number) => Statement) | null; full: Statement} | null {
  const parts = queryParts(accountId, dbId, spec)
  return parts && {walk: walkable(spec) ? (budget) => walkOf(parts, spec, budget) : null, full: selectOf(parts, spec)}
}

/**
 * SQLite's LIKE (ASCII letters either case, ESCAPE '\') of a text expression against a bound
 * pattern: lower() under the "C" collation folds ASCII letters only, as svc_fold does, several
 * times faster than its translate().
 */
const foldedLike = (expr: string) => `lower((${expr}) COLLATE "C") LIKE lower((?)::text COLLATE "C") ESCAPE '\\'`

/** A list of SQL conditions (joined with AND) and their bound values, in order. */
interface Conditions {where: string[]; params: unknown[]}

/**
 * A query spec's SQL: the conditions on the record's place and fields, `q`'s literal runs (for
 * the trigram index, a superset of the matches) and its exact check, and the order.
 */
interface QueryParts {base: Conditions; literals: string[]; exact: Conditions; order: string; orderParams: unknown[]}

/** Identifiers from whitelists, every value and field name bound; null: no record can match. */
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
  const literals = spec.q && spec.useFts !== false ? spec.q.literals.map((l) => `%${likeEscape(l)}%`) : []
  const exact: Conditions = {where: [], params: []}
  if (spec.q?.fields === 'all') {
    exact.where.push(`EXISTS (SELECT 1 FROM json_each(r.data) j WHERE json_typeof(j.value) IN ('string', 'number') AND ${foldedLike('svc_scalar(j.value)')})`)
    exact.params.push(spec.q.pattern)
  } else if (spec.q) {
    exact.where.push(`(${spec.q.fields.map(() => foldedLike(`svc_scalar(${FIELD})`)).join(' OR ')})`)
    for (const f of spec.q.fields) exact.params.push(f.name, spec.q.pattern)
  }
  const dir = spec.desc ? 'DESC' : 'ASC'
  // SQLite puts NULL first in ascending order, last in descending.
  const nulls = spec.desc ? 'NULLS LAST' : 'NULLS FIRST'
  const base = {where, params}
  if (spec.sort.kind === 'column') {
    const order = spec.sort.column === 'id' ? `r.id ${dir}` : `${recordColumn(spec.sort.column)} ${dir} ${nulls}, r.id ${dir}`
    return {base, literals, exact, order, orderParams: []}
  }
  // Numbers before text, text by code point (COLLATE "C"), as SQLite orders json_extract values.
  const order = [`svc_sort_rank(${FIELD}) ${dir}`, `svc_sort_num(${FIELD}) ${dir}`, `svc_sort_text(${FIELD}) COLLATE "C" ${dir}`, `r.id ${dir}`].join(', ')
  return {base, literals, exact, order, orderParams: [spec.sort.field, spec.sort.field, spec.sort.field]}
}

const RECORD_SELECT = 'SELECT r.id, r.table_name, r.data, r.created_at, r.updated_at FROM'

/** The whole query: every condition, `q`'s literals through the trigram index (ILIKE), sorted, one page. */
function selectOf(parts: QueryParts, spec: QuerySpec): Statement {
  const where = [...parts.base.where, ...parts.literals.map(() => 'r.search_text ILIKE ?'), ...parts.exact.where]
  return {
    sql: `${RECORD_SELECT} db_records r WHERE ${where.join(' AND ')} ORDER BY ${parts.order} LIMIT ? OFFSET ?`,
    params: [...parts.base.params, ...parts.literals, ...parts.exact.params, ...parts.orderParams, spec.limit, spec.offset],
  }
}

/**
 * Rows of the first walk (docs/dbs.md "Search on PostgreSQL"). A fragment whose trigrams are
 * common has hits all along the table: walking the records in the query's order (an index scan)
 * finds a page of them and stops, where the trigram bitmap reads and sorts every candidate (80-130
 * ms for a 5-letter fragment of the bench's names at 1M records). Checking a row costs ~2 µs, so
 * a walk that finds nothing here has cost ~2 ms before the trigram index answers.
 */
export const WALK_PROBE = 1000
/** The longest walk (~30 ms): past it the trigram index costs less than walking on. */
export const WALK_MAX = 16_000
/** Pages reaching further than this (offset + limit) skip the walk. */
const WALK_MAX_REACH = 200
/** Sorts an index gives in order (a walk must read rows in the query's order). */
const WALKABLE = new Set<string>(['id', ...INDEX_COLUMNS])

/** A walk can help: a `q` with trigram literals, in one table, sorted by a column an index follows, a page near the top. */
function walkable(spec: QuerySpec): boolean {
  return Boolean(spec.q?.literals.length) && spec.useFts !== false && spec.tableName !== undefined &&
    spec.sort.kind === 'column' && WALKABLE.has(spec.sort.column) && spec.offset + spec.limit <= WALK_MAX_REACH
}

/**
 * The first `budget` records in the query's order (every condition but `q`'s), then `q`'s
 * conditions on them, up to offset + limit hits. The window is a prefix of the order, so its hits
 * are the answer's first ones. The literals are checked by lower() under "C" and LIKE (a fold of
 * ASCII letters, as the exact check's), not by ILIKE, which costs about twice as much per row.
 */
function walkOf(parts: QueryParts, spec: QuerySpec, budget: number): Statement {
  let {where: base, params} = parts.base
  let order = parts.order
  if (spec.sort.kind === 'column' && spec.sort.column === 'id') {
    // In id order the planner may walk the primary key and filter by db (its statistics say most
    // rows are this db's), reading every newer record of other dbs first: 18,000 of them, 12 ms, in
    // one measure. The table name as a range and in the order leaves only (db_id, table_name, id)
    // to walk; every row of the window has the same table name, so the order is the id's.
    const at = base.indexOf('r.table_name = ?')
    const before = base.slice(0, at).join(' ').split('?').length - 1
    base = [...base.slice(0, at), 'r.table_name >= ? AND r.table_name <= ?', ...base.slice(at + 1)]
    params = [...params.slice(0, before), params[before], ...params.slice(before)]
    order = `r.table_name ${spec.desc ? 'DESC' : 'ASC'}, ${order}`
  }
  const window = `SELECT * FROM db_records r WHERE ${base.join(' AND ')} ORDER BY ${order} LIMIT ${Math.floor(budget)}`
  const where = [...parts.literals.map(() => 'lower(r.search_text COLLATE "C") LIKE ?'), ...parts.exact.where]
  return {
    sql: `${RECORD_SELECT} (${window}) r WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ?`,
    params: [...params, ...parts.literals.map(asciiLower), ...parts.exact.params, spec.offset + spec.limit],
  }
}

const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase())
