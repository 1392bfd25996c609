/**
 * The dbs repository's PostgreSQL part (src/store/dbs/types.ts DbsSearch): a db without tables
 * keeps its records under table_name '' (indexable, unlike IS NOT DISTINCT FROM), a field is read
 * with `->`, its name bound, and the record search walks the records in order before it asks the
 * pg_trgm index (docs/dbs.md "Search on PostgreSQL"). PostgreSQL keeps that index itself.
 */
import type {QuerySpec} from '../../core/dbs/query.js'
import {INDEX_COLUMNS} from '../../core/dbs/schema.js'
import {inRanges} from '../dbs/ranges.js'
import {recordColumn, recordPlace, type RecordRow} from '../dbs/rows.js'
import type {Condition, DbsSearch} from '../dbs/types.js'
import {likeEscape, likePattern} from '../like-escape.js'
import type {SqlPort} from '../sql/port.js'

/** A field of the record's data as JSON (the name is bound, never spliced). */
const FIELD = 'r.data -> (?::text)'
const TABLE_IS = 'r.table_name = ?'
const tableKey = (tableName: string | null) => tableName ?? ''
const scope = (field: string, value: string): Condition => ({
  sql: `json_typeof(${FIELD}) = 'string' AND r.data ->> (?::text) = ?`, params: [field, field, value],
})
const PLACE = {tableIs: TABLE_IS, tableKey, scope}

export function pgDbsSearch(sql: SqlPort): DbsSearch {
  return {
    ...PLACE,
    fieldSet: (field): Condition => ({sql: `json_typeof(${FIELD}) <> 'null'`, params: [field]}),
    recordsCount: '(SELECT count(*) FROM db_records r WHERE r.db_id = d.id)',
    tableCounts: 'SELECT table_name, count(*) AS n FROM db_records WHERE account_id = ? AND db_id = ? GROUP BY table_name ORDER BY table_name',
    query: (accountId, dbId, spec) => query(sql, accountId, dbId, spec),
    journaledInsert,
  }
}

/**
 * A record's insert and its journal entry in one statement (one round trip, its own transaction):
 * the entry's kept row as stateOf makes it (store/journal/tables.ts: the computed search text and
 * null index columns left out, `data` its JSON text) and its summary as summaryOf words it. Binds
 * the insert's values, the account and db (the db must be live), then the journal's door, client,
 * actor type, id and name, request id and time. Its place is drawn at commit (migration 70).
 */
function journaledInsert(columns: string, values: string): string {
  return `WITH r AS (INSERT INTO db_records (${columns}) SELECT ${values}
      WHERE EXISTS (SELECT 1 FROM dbs WHERE account_id = ? AND id = ? AND deleted_at IS NULL) RETURNING *),
    j AS (INSERT INTO journal (pos, account_id, kind, resource_id, parent_id, op, gone, state, summary, door, client, actor_type, actor_id,
        actor_name, request_id, at)
      SELECT NULL, r.account_id, 'record', r.id::text, r.db_id::text, 'create', 0,
        jsonb_set(jsonb_strip_nulls(to_jsonb(r) - 'search_text'), '{data}', to_jsonb(r.data::text))::text,
        'record #' || r.id || CASE WHEN r.table_name <> '' THEN ' in ' || r.table_name ELSE '' END || ' created',
        ?, ?, ?, ?, ?, ?, ? FROM r)
    SELECT * FROM r`
}

async function query(sql: SqlPort, accountId: number, dbId: number, spec: QuerySpec): Promise<RecordRow[]> {
  const statements = searchStatements(accountId, dbId, spec)
  if (!statements) return []
  const {walk, full} = statements
  if (walk) {
    // A short walk first: enough hits, and they are the answer; none, and the fragment is rare
    // (the trigram index answers); a few, and a longer walk is worth it when their density says
    // it reaches a page within WALK_MAX rows.
    const needed = spec.offset + spec.limit
    const first = walk(WALK_PROBE)
    const probe = await sql.all<RecordRow>(first.sql, first.params)
    if (probe.length >= needed) return probe.slice(spec.offset)
    const expected = probe.length && Math.ceil((needed * WALK_PROBE) / probe.length)
    if (expected && expected <= WALK_MAX) {
      const longer = walk(Math.min(expected * 2, WALK_MAX))
      const rows = await sql.all<RecordRow>(longer.sql, longer.params)
      if (rows.length >= needed) return rows.slice(spec.offset)
    }
  }
  return sql.all<RecordRow>(full.sql, full.params)
}

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
  const place = recordPlace(PLACE, accountId, dbId, spec)
  if (!place) return null
  const {where, params} = place
  for (const f of spec.filters) {
    if (f.op === 'match') {
      if (f.field.column && f.columnRanges) {
        const ranges = inRanges(recordColumn(f.field.column), f.columnRanges)
        where.push(ranges.sql)
        params.push(...ranges.params)
      }
      where.push(foldedLike(`svc_scalar(${FIELD})`))
      params.push(f.field.name, likePattern(f.match))
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
  const literals = spec.q && spec.useTextIndex !== false ? spec.q.literals.map((l) => `%${likeEscape(l)}%`) : []
  const exact: Conditions = {where: [], params: []}
  if (spec.q?.fields === 'all') {
    exact.where.push(`EXISTS (SELECT 1 FROM json_each(r.data) j WHERE json_typeof(j.value) IN ('string', 'number') AND ${foldedLike('svc_scalar(j.value)')})`)
    exact.params.push(likePattern(spec.q.match))
  } else if (spec.q) {
    exact.where.push(`(${spec.q.fields.map(() => foldedLike(`svc_scalar(${FIELD})`)).join(' OR ')})`)
    const pattern = likePattern(spec.q.match)
    for (const f of spec.q.fields) exact.params.push(f.name, pattern)
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
  return Boolean(spec.q?.literals.length) && spec.useTextIndex !== false && spec.tableName !== undefined &&
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
    const at = base.indexOf(TABLE_IS)
    const before = base.slice(0, at).join(' ').split('?').length - 1
    base = [...base.slice(0, at), 'r.table_name >= ? AND r.table_name <= ?', ...base.slice(at + 1)]
    params = [...params.slice(0, before), params[before], ...params.slice(before)]
    order = `r.table_name ${spec.desc ? 'DESC' : 'ASC'}, ${order}`
  }
  const window = `SELECT * FROM db_records r WHERE ${base.join(' AND ')} ORDER BY ${order} LIMIT ?`
  const where = [...parts.literals.map(() => 'lower(r.search_text COLLATE "C") LIKE ?'), ...parts.exact.where]
  return {
    sql: `${RECORD_SELECT} (${window}) r WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ?`,
    params: [...params, Math.floor(budget), ...parts.literals.map(asciiLower), ...parts.exact.params, spec.offset + spec.limit],
  }
}

const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase())
