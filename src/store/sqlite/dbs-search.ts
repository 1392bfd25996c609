/**
 * The dbs repository's SQLite part (src/store/dbs/types.ts DbsSearch): a db without tables keeps
 * its records under table_name NULL, fields are read with json_extract, and record writes keep
 * the batched FTS5 index (fts-indexer.ts).
 */
import type {Condition, DbsSearch, SearchUpkeep} from '../dbs/types.js'
import type {Sqlite} from './connection.js'
import {indexAfterUpdates, indexOnBatchBoundary, indexPending, indexWhenIdle} from './fts-indexer.js'

/** The SQLite JSON path of a top-level field (names are checked against FIELD_NAME in core). */
export const jsonPath = (name: string) => `$."${name}"`

export function sqliteDbsSearch(db: Sqlite): DbsSearch {
  return {
    tableKey: (tableName) => tableName,
    tableIs: 'r.table_name IS ?',
    scope: (field, value): Condition => ({sql: 'json_extract(r.data, ?) = ?', params: [jsonPath(field), value]}),
    fieldSet: (field): Condition => ({sql: `json_type(r.data, ?) != 'null'`, params: [jsonPath(field)]}),
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
    *imported() {
      indexPending(db) // an import's batch: index everything queued now, the cheapest way
    },
    written: () => indexWhenIdle(db),
  }
}
