/**
 * The dbs repository's PostgreSQL part (src/store/dbs/types.ts DbsSearch): a db without tables
 * keeps its records under table_name '' (indexable, unlike IS NOT DISTINCT FROM), a field is read
 * with `->`, its name bound.
 */
import type {Condition, DbsSearch} from '../dbs/types.js'

/** A field of the record's data as JSON (the name is bound, never spliced). */
export const FIELD = 'r.data -> (?::text)'

export function pgDbsSearch(): DbsSearch {
  return {
    tableKey: (tableName) => tableName ?? '',
    tableIs: 'r.table_name = ?',
    scope: (field, value): Condition => ({
      sql: `json_typeof(${FIELD}) = 'string' AND r.data ->> (?::text) = ?`, params: [field, field, value],
    }),
    fieldSet: (field): Condition => ({sql: `json_typeof(${FIELD}) <> 'null'`, params: [field]}),
  }
}
