/**
 * The db and record rows as both drivers read them, and the statements on them that are the same
 * in SQLite and PostgreSQL (JSON as text in both), used by repo.ts; the search's statements are
 * each driver's (DbsSearch).
 */
import type {IndexValues} from '../../core/dbs/records.js'
import {INDEX_COLUMNS, INT_COLUMNS, type IndexColumn} from '../../core/dbs/schema.js'
import type {QuerySpec} from '../../core/dbs/query.js'
import type {DbsSearch, DbView, RecordView} from './types.js'

export interface DbRow {
  id: number; account_id: number; name: string; code: string | null; app_id: string | null; schema: string | null
  public_methods: string; fields: string; created_at: string; updated_at: string; records_count: number
}
/** `table_name` of a db without tables: NULL in SQLite, '' in PostgreSQL (indexable there); null to the API. */
export interface RecordRow {id: number; table_name: string | null; data: string; created_at: string; updated_at: string}

const SORT_COLUMNS = new Set<string>(['id', 'created_at', 'updated_at', ...INDEX_COLUMNS])
/** Index and sort columns come from this whitelist only; anything else is a programming error. */
export function recordColumn(name: string): string {
  if (!SORT_COLUMNS.has(name)) throw new Error(`not a record column: ${name}`)
  return `r.${name}`
}

/** A db with its record count, `recordsCount` the driver's expression of it (DbsSearch). */
const dbSelect = (recordsCount: string) => `SELECT d.*, ${recordsCount} AS records_count FROM dbs d`
/** Without the count: what record routes and public methods load on every request. records_count is -1 there. */
export const DB_SELECT_NO_COUNT = `SELECT d.*, -1 AS records_count FROM dbs d`
/** A db being deleted (deleted_at set, its records being purged) is read by none of these. */
const byIdOrCode = (select: string) => ({
  id: `${select} WHERE d.account_id = ? AND d.id = ? AND d.deleted_at IS NULL`,
  code: `${select} WHERE d.account_id = ? AND d.code = ? AND d.deleted_at IS NULL`,
})
export type DbById = ReturnType<typeof byIdOrCode>
/** The statements that read dbs with their record counts. */
export const dbStatements = (recordsCount: string) => ({
  list: `${dbSelect(recordsCount)} WHERE d.account_id = ? AND d.deleted_at IS NULL ORDER BY d.id`,
  byId: byIdOrCode(dbSelect(recordsCount)),
})
export const DB_BY_ID_NO_COUNT = byIdOrCode(DB_SELECT_NO_COUNT)

export function toDb(row: DbRow): DbView {
  return {
    id: row.id, name: row.name, code: row.code, app_id: row.app_id,
    schema: row.schema === null ? null : (JSON.parse(row.schema) as Record<string, unknown>),
    public_methods: JSON.parse(row.public_methods) as Record<string, unknown>,
    fields: JSON.parse(row.fields) as Record<string, unknown>,
    records_count: row.records_count, created_at: row.created_at, updated_at: row.updated_at,
  }
}

/** A stored table name as the API names it (table names are never empty: TABLE_NAME). */
export const tableNameOf = (stored: string | null) => (stored === '' ? null : stored)

export const toRecordView = (row: RecordRow): RecordView => ({
  id: row.id, table_name: tableNameOf(row.table_name), data: JSON.parse(row.data) as RecordView['data'],
  created_at: row.created_at, updated_at: row.updated_at,
})

export const RECORD_COLUMNS = 'id, table_name, data, created_at, updated_at'
export const INDEX_LIST = INDEX_COLUMNS.join(', ')
/** The SQL type of each index column (a number column holds a double, the others text). */
export const indexType = (column: IndexColumn) => ((INT_COLUMNS as readonly string[]).includes(column) ? 'double precision' : 'text')
export const indexParams = (index: IndexValues) => INDEX_COLUMNS.map((c) => index[c])
/** Binds table name (as the driver stores it), data, the index columns, updated_at, account, db, id. */
export const UPDATE_RECORD = `UPDATE db_records SET table_name = ?, data = ?, ${INDEX_COLUMNS.map((c) => `${c} = ?`).join(', ')}, updated_at = ?
  WHERE account_id = ? AND db_id = ? AND id = ? RETURNING ${RECORD_COLUMNS}`

/**
 * The conditions (on `r`) every record query of a spec starts with, and their values: its account,
 * db and table, the visitor's scope, the page's start. Null when no record can match.
 */
export function recordPlace(
  fields: Pick<DbsSearch, 'tableIs' | 'tableKey' | 'scope'>, accountId: number, dbId: number, spec: QuerySpec,
): {where: string[]; params: unknown[]} | null {
  const where = ['r.account_id = ?', 'r.db_id = ?']
  const params: unknown[] = [accountId, dbId]
  if (spec.tableName !== undefined) {
    where.push(fields.tableIs)
    params.push(fields.tableKey(spec.tableName))
  }
  if (spec.scope) {
    if (spec.scope.value === '') return null
    const scoped = fields.scope(spec.scope.field, spec.scope.value)
    where.push(scoped.sql)
    params.push(...scoped.params)
  }
  if (spec.afterId !== undefined) {
    where.push('r.id > ?')
    params.push(spec.afterId)
  }
  return {where, params}
}
