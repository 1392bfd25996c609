/**
 * One slice of a schema change's reindex (repo.ts `reindex`): a transaction body over the SQL port,
 * run by the repository on its port, or on SQLite by the reindex's own thread on its own connection
 * (sqlite/reindex-worker.ts), so this module imports nothing that holds a connection.
 */
import {indexerOf} from '../../core/dbs/records.js'
import {INDEX_COLUMNS, planSchema} from '../../core/dbs/schema.js'
import type {TxBody, TxSql} from '../sql/port.js'
import {indexParams, indexType, tableNameOf} from './rows.js'

/**
 * Records whose index columns one transaction of a reindex rewrites. On SQLite a slice of 250 took
 * about 20 ms; one transaction rewriting a 300,000-record db held the server's thread 12.4 s.
 */
export const REINDEX_SLICE = 250

/** What a slice's SQL differs by between the stores: the dialect's row lock and typed parameters, the store's table key. */
export interface ReindexPlace {
  forUpdate: string
  typed(type: string): string
  /** The condition on `r.table_name` that finds a `tableKey` bound after it. */
  tableIs: string
  tableKey(tableName: string | null): string | null
}

/**
 * The next slice of db `dbId`'s reindex: rewrites the index columns of up to REINDEX_SLICE of its
 * records, table by table (the null table first, stored as table_key ''), each in id order from
 * the mark's place (db_reindexes), and moves the mark on; the last slice removes it. Each slice
 * reads the schema and the place as they are now, under the db row's lock: another schema change
 * meanwhile starts the place over, and two servers reindexing one db share the work. True while
 * slices are left.
 */
export function reindexSlice(place: ReindexPlace, dbId: number): (q: TxSql) => TxBody<boolean> {
  const {forUpdate, typed, tableIs, tableKey} = place
  const row = `(${[typed('bigint'), ...INDEX_COLUMNS.map((c) => typed(indexType(c)))].join(', ')})`
  // A VALUES list names its columns column1 (the id), column2... in both databases.
  const set = INDEX_COLUMNS.map((c, i) => `${c} = v.column${i + 2}`).join(', ')
  return function* (q) {
    const mark = yield* q.get<{table_key: string; after_id: number | string; schema: string | null; deleted_at: string | null}>(
      `SELECT m.table_key, m.after_id, d.schema, d.deleted_at FROM db_reindexes m JOIN dbs d ON d.id = m.db_id WHERE m.db_id = ?${forUpdate}`, [dbId])
    if (!mark) return false
    const done = function* () {
      yield* q.run('DELETE FROM db_reindexes WHERE db_id = ?', [dbId])
      // Moves the cache epoch (the dbs triggers of migration 90), changing nothing: every server
      // reads again that this db's queries may use its index columns.
      yield* q.run('UPDATE dbs SET updated_at = updated_at WHERE id = ?', [dbId])
      return false
    }
    if (mark.deleted_at !== null) return yield* done() // being deleted: its purge takes the records
    const indexer = indexerOf(planSchema(mark.schema === null ? null : JSON.parse(mark.schema)))
    const tableName = mark.table_key === '' ? null : mark.table_key
    const rows = yield* q.all<{id: number | string; table_name: string | null; data: string}>(
      `SELECT r.id, r.table_name, r.data FROM db_records r WHERE r.db_id = ? AND ${tableIs} AND r.id > ? ORDER BY r.id LIMIT ${REINDEX_SLICE}${forUpdate}`,
      [dbId, tableKey(tableName), mark.after_id])
    if (rows.length) {
      const params = rows.flatMap((r) => [r.id, ...indexParams(indexer(tableNameOf(r.table_name), JSON.parse(r.data)))])
      yield* q.run(`UPDATE db_records AS r SET ${set} FROM (VALUES ${rows.map(() => row).join(', ')}) AS v WHERE r.id = v.column1`, params)
    }
    if (rows.length === REINDEX_SLICE) {
      yield* q.run('UPDATE db_reindexes SET after_id = ? WHERE db_id = ?', [rows[rows.length - 1]!.id, dbId])
      return true
    }
    // This table is done: the next one by name (table names are never empty: '' is the null table's key).
    const next = yield* q.get<{t: string | null}>(
      "SELECT min(table_name) AS t FROM db_records WHERE db_id = ? AND table_name > ? AND table_name != ''", [dbId, mark.table_key])
    if (!next || next.t === null) return yield* done()
    yield* q.run('UPDATE db_reindexes SET table_key = ?, after_id = 0 WHERE db_id = ?', [next.t, dbId])
    return true
  }
}
