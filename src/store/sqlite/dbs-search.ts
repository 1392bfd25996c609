/**
 * The dbs repository's SQLite part (src/store/dbs/types.ts DbsSearch): a db without tables keeps
 * its records under table_name NULL, fields are read with json_extract, the record search takes
 * its candidates from the FTS5 trigram index, and record writes keep that index (fts-indexer.ts).
 */
import type {TextRange} from '../../core/dbs/prefix-ranges.js'
import type {Filter, QuerySpec} from '../../core/dbs/query.js'
import {INDEX_COLUMNS, type IndexColumn} from '../../core/dbs/schema.js'
import {recordColumn, recordPlace, type RecordRow} from '../dbs/rows.js'
import {likePattern} from '../like-escape.js'
import type {Condition, DbsSearch, SearchUpkeep} from '../dbs/types.js'
import type {SqlPort} from '../sql/port.js'
import type {Sqlite} from './connection.js'
import {jsonPath, RECORD_PLACE} from './dialect.js'
import {FTS_CANDIDATES, holdDeleteMerges, indexAfterUpdates, indexOnBatchBoundary, indexQueue, indexWhenIdle} from './fts-indexer.js'
import type {ReaderPool} from './reader-pool.js'
import {reindexThread} from './reindex-thread.js'

/** An FTS5 phrase for a literal: double quotes doubled. */
const phrase = (literal: string) => `"${literal.replace(/"/g, '""')}"`
const PLACE = RECORD_PLACE

/**
 * `sql`: the port over `db`, the connection the FTS indexer writes on. `readers`: the threads a
 * query that may read many records runs on while they are started (reader-pool.ts).
 */
export function sqliteDbsSearch(sql: SqlPort, db: Sqlite, readers?: ReaderPool): DbsSearch {
  /** Whether a statement's plan walks an index in its order, by SQL text (isShort). */
  const walkingPlans = new Map<string, boolean>()
  return {
    ...PLACE,
    fieldSet: (field): Condition => ({sql: `json_type(r.data, ?) != 'null'`, params: [jsonPath(field)]}),
    // Kept by triggers (migration 54): one row read, not the records' index scanned.
    recordsCount: '(SELECT coalesce(sum(c.n), 0) FROM db_record_counts c WHERE c.db_id = d.id)',
    tableCounts: `SELECT nullif(table_key, '') AS table_name, n FROM db_record_counts
      WHERE db_id = (SELECT id FROM dbs WHERE account_id = ? AND id = ?) AND n > 0 ORDER BY table_key`,
    async query(accountId, dbId, spec) {
      const select = buildSelect(accountId, dbId, spec, await narrowRanges(sql, dbId, spec))
      if (!select.sql) return []
      if (readers?.running && !isShort(db, walkingPlans, spec, select.sql, select.params)) return readers.all<RecordRow>(select.sql, select.params, String(accountId))
      return sql.all<RecordRow>(select.sql, select.params)
    },
    upkeep: ftsUpkeep(db),
  }
}

/**
 * The indexer runs its statements on the connection itself: SQLite runs a transaction body
 * synchronously inside its transaction, so they are part of the write, as its own statements are.
 */
function ftsUpkeep(db: Sqlite): SearchUpkeep {
  return {
    *created(_q, recordId) {
      indexOnBatchBoundary(db, recordId)
    },
    *updated() {
      indexAfterUpdates(db)
    },
    // An import's batch: everything queued is indexed now, in runs after the batch's commit.
    imported: () => indexQueue(db),
    written: () => indexWhenIdle(db),
    purging: () => holdDeleteMerges(db),
    reindexThread: () => reindexThread(db),
  }
}

/** The furthest a page may reach into its order and still be read on the server's thread. */
export const SHORT_REACH = 1000

/**
 * Whether a query reads at most about `offset + limit` records, so that it may run on the server's
 * thread: no text search, no visitor scope, at most one filter and that one answered by its index
 * column alone, a page within SHORT_REACH of the start, and a plan that walks an index in the
 * query's order (no full scan, no sort of the matches). Anything else may read the whole db.
 */
function isShort(db: Sqlite, walkingPlans: Map<string, boolean>, spec: QuerySpec, sql: string, params: unknown[]): boolean {
  if (spec.q || spec.scope || spec.offset + spec.limit > SHORT_REACH || spec.filters.length > 1) return false
  const f = spec.filters[0]
  if (f && !(f.op === 'eq' && f.field.column && f.columnExact)) return false
  let walks = walkingPlans.get(sql)
  if (walks === undefined) {
    // The plan depends on the SQL text alone (svc runs no ANALYZE): asked once per text.
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as {detail: string}[]
    walks = plan.every((step) => !/^SCAN\b/.test(step.detail) && !/TEMP B-TREE/.test(step.detail))
    if (walkingPlans.size >= 1000) walkingPlans.clear()
    walkingPlans.set(sql, walks)
  }
  return walks
}

/**
 * The pattern filters whose prefix ranges hold few records (under RANGE_CANDIDATES_MAX, counted
 * on the column index): the query starts from the ids in those. A broad prefix (`https://*` on a
 * column of URLs) is left to the walk in the query's order, which finds a page of hits at once
 * where starting from the ranges would read and sort all of them. SQLite has no statistics to
 * choose between the two (svc runs no ANALYZE); this count is one.
 */
async function narrowRanges(sql: SqlPort, dbId: number, spec: QuerySpec): Promise<Set<Filter>> {
  const narrow = new Set<Filter>()
  if (spec.tableName === undefined) return narrow
  for (const f of spec.filters) {
    if (f.op !== 'match' || !f.columnRanges || !f.field.column) continue
    const candidates = rangeCandidates(dbId, spec.tableName, f.field.column, f.columnRanges)
    const {n} = (await sql.get<{n: number}>(`SELECT count(*) AS n FROM (${candidates.sql} LIMIT ${RANGE_CANDIDATES_MAX})`, candidates.params))!
    if (n < RANGE_CANDIDATES_MAX) narrow.add(f)
  }
  return narrow
}

/** Records a prefix filter's ranges may hold for the query to start from them. */
const RANGE_CANDIDATES_MAX = 1000

/** The ids in a string index column's ranges (each a search of the column's index, its rows not read). */
function rangeCandidates(dbId: number, tableName: string | null, column: IndexColumn, ranges: TextRange[]): {sql: string; params: unknown[]} {
  if (!INDEX_COLUMNS.includes(column)) throw new Error(`not an index column: ${column}`)
  const params: unknown[] = []
  const selects = ranges.map(([from, to]) => {
    params.push(dbId, tableName, from)
    if (to !== null) params.push(to)
    return `SELECT id FROM db_records WHERE db_id = ? AND table_name IS ? AND ${column} >= ?${to === null ? '' : ` AND ${column} < ?`}`
  })
  return {sql: selects.join(' UNION ALL '), params}
}

/**
 * The SELECT of a query spec: identifiers from whitelists, every value and JSON path bound.
 * `fromRanges`: pattern filters (with prefix ranges) whose query starts from the ids in their ranges.
 */
export function buildSelect(
  accountId: number, dbId: number, spec: QuerySpec, fromRanges: ReadonlySet<Filter> = new Set(),
): {sql: string | null; params: unknown[]} {
  const place = recordPlace(PLACE, accountId, dbId, spec)
  if (!place) return {sql: null, params: []}
  const {where, params} = place
  for (const f of spec.filters) {
    if (f.op === 'match') {
      if (fromRanges.has(f) && f.field.column && f.columnRanges && spec.tableName !== undefined) {
        const candidates = rangeCandidates(dbId, spec.tableName, f.field.column, f.columnRanges)
        where.push(`r.id IN (${candidates.sql})`)
        params.push(...candidates.params)
      }
      where.push(`json_extract(r.data, ?) LIKE ? ESCAPE '\\'`)
      params.push(jsonPath(f.field.name), likePattern(f.match))
      continue
    }
    if (f.field.column && f.columnValue !== undefined) {
      where.push(`${recordColumn(f.field.column)} = ?`)
      params.push(f.columnValue)
    }
    if (!(f.field.column && f.columnExact)) {
      where.push(`json_extract(r.data, ?) IN (${f.values.map(() => '?').join(', ')})`)
      params.push(jsonPath(f.field.name), ...f.values)
    }
  }
  if (spec.q) {
    const pattern = likePattern(spec.q.match)
    if (spec.useTextIndex !== false && spec.q.literals.length) {
      where.push(`r.id IN (${FTS_CANDIDATES})`)
      params.push(spec.q.literals.map(phrase).join(' AND '))
    }
    if (spec.q.fields === 'all') {
      where.push(`EXISTS (SELECT 1 FROM json_each(r.data) j WHERE j.type IN ('text', 'integer', 'real') AND j.value LIKE ? ESCAPE '\\')`)
      params.push(pattern)
    } else {
      where.push(`(${spec.q.fields.map(() => `json_extract(r.data, ?) LIKE ? ESCAPE '\\'`).join(' OR ')})`)
      for (const f of spec.q.fields) params.push(jsonPath(f.name), pattern)
    }
  }
  const dir = spec.desc ? 'DESC' : 'ASC'
  let order: string
  if (spec.sort.kind === 'column') order = spec.sort.column === 'id' ? `r.id ${dir}` : `${recordColumn(spec.sort.column)} ${dir}, r.id ${dir}`
  else {
    order = `json_extract(r.data, ?) ${dir}, r.id ${dir}`
    params.push(jsonPath(spec.sort.field))
  }
  params.push(spec.limit, spec.offset)
  return {
    sql: `SELECT r.id, r.table_name, r.data, r.created_at, r.updated_at FROM db_records r WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ? OFFSET ?`,
    params,
  }
}

