/**
 * The dbs repository's SQLite part (src/store/dbs/types.ts DbsSearch): a db without tables keeps
 * its records under table_name NULL, fields are read with json_extract.
 */
import type {Condition, DbsSearch} from '../dbs/types.js'

/** The SQLite JSON path of a top-level field (names are checked against FIELD_NAME in core). */
export const jsonPath = (name: string) => `$."${name}"`

export function sqliteDbsSearch(): DbsSearch {
  return {
    tableKey: (tableName) => tableName,
    tableIs: 'r.table_name IS ?',
    scope: (field, value): Condition => ({sql: 'json_extract(r.data, ?) = ?', params: [jsonPath(field), value]}),
    fieldSet: (field): Condition => ({sql: `json_type(r.data, ?) != 'null'`, params: [jsonPath(field)]}),
  }
}
