/**
 * What SQLite's SQL differs by for the repositories (src/store/sql/port.ts Dialect), and where a
 * record's table name and fields are found: a module of its own, which imports no connection, so
 * that the worker threads that run a repository's transaction bodies (reindex-worker.ts) share it.
 */
import type {Condition} from '../dbs/types.js'
import type {Dialect} from '../sql/port.js'

const UNIQUE = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY'])
const FOREIGN_KEY = 'SQLITE_CONSTRAINT_FOREIGNKEY'

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  // SQLite's LIKE is case-insensitive for ASCII letters.
  likeCi: (column) => `${column} LIKE ? ESCAPE '\\'`,
  orderCi: (column) => `${column} COLLATE NOCASE`,
  // The write transaction (BEGIN IMMEDIATE) holds the database's write lock from its start.
  forUpdate: '',
  forShare: '',
  inArray: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  arrayParam: (values) => JSON.stringify(values),
  jsonArrayAgg: (expression, orderBy) => `json_group_array(${expression} ORDER BY ${orderBy})`,
  millisBetween: (later, earlier) => `CAST((julianday(${later}) - julianday(${earlier})) * 86400000 AS INTEGER)`,
  isUniqueViolation: (error) => UNIQUE.has(codeOf(error) ?? ''),
  isForeignKeyViolation: (error) => codeOf(error) === FOREIGN_KEY,
  typed: () => '?',
}

function codeOf(error: unknown): string | undefined {
  const own = (error as {code?: unknown})?.code
  if (typeof own === 'string') return own
  const cause = (error as {cause?: {code?: unknown}})?.cause?.code
  return typeof cause === 'string' ? cause : undefined
}

/** The SQLite JSON path of a top-level field (names are checked against FIELD_NAME in core). */
export const jsonPath = (name: string) => `$."${name}"`
/** A db without tables keeps its records under table_name NULL; a visitor's scope is a field's value. */
export const RECORD_PLACE = {
  tableIs: 'r.table_name IS ?',
  tableKey: (tableName: string | null) => tableName,
  scope: (field: string, value: string): Condition => ({sql: 'json_extract(r.data, ?) = ?', params: [jsonPath(field), value]}),
}
