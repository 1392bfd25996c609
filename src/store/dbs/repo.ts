/**
 * The dbs area's repository, written once over the SQL port (src/store/sql/port.ts): dbs and
 * their records. What is the driver's own (how a record's table name is stored and its fields are
 * read, the record search, the upkeep of SQLite's full-text index) it asks of a `DbsSearch`
 * (sqlite/dbs-search.ts, pg/dbs-search.ts).
 */
import type {DbInput} from '../../core/dbs/db.js'
import {type QuerySpec, readingData} from '../../core/dbs/query.js'
import {INDEX_COLUMNS} from '../../core/dbs/schema.js'
import {validation} from '../../core/errors.js'
import {publicDbFull} from '../../core/quotas.js'
import {deepFreeze} from '../cache-entries.js'
import {appendEntry, appendRow, JournalContext} from '../journal/writer.js'
import {reindexSlice} from './reindex.js'
import {type EpochCache, isRowId, type SqlPort, type TxBody, type TxSql, txUnique} from '../sql/port.js'
import {
  DB_BY_ID_NO_COUNT, DB_SELECT_NO_COUNT, type DbById, dbStatements, type DbRow, INDEX_LIST, indexParams, indexType, RECORD_COLUMNS, type RecordRow,
  tableNameOf, toDb, toRecordView, UPDATE_RECORD,
} from './rows.js'
import type {Condition, DbsRepo, DbsSearch, DbView, RecordView, RecordWrite, TableUsage} from './types.js'

const now = () => new Date().toISOString()
const codeTaken = () => validation({code: ['has already been taken']})
const noLongerExists = () => validation({db: ['no longer exists']})
export {REINDEX_SLICE} from './reindex.js'
/** The longest pause after a reindex slice (the pause is as long as the slice took). */
const REINDEX_PAUSE_MAX_MS = 50
/**
 * Records one statement of a per-field count reads: a slice, then a turn of the event loop for
 * other requests (SQLite runs statements on the server's own thread: one statement over 1M
 * records held it 2.5 s).
 */
export const USAGE_SLICE = 10_000
/** Records one transaction of a db's purge removes, then a turn of the event loop for other requests.
 * On SQLite a slice runs on the purge's own thread (SearchUpkeep.purging) while the server's writes
 * wait: slices of 1,000 took 20-60 ms at 1M records with the index's merges held, 500 about half. */
export const PURGE_SLICE = 500
/** Rows per INSERT of an import (SQLite binds at most 32,766 parameters, PostgreSQL 65,535). */
const IMPORT_CHUNK = 500
/** The SQL types of an inserted record's values, in RECORD_INSERT_COLUMNS order. */
const ROW_TYPES = ['bigint', 'bigint', 'text', 'json', ...INDEX_COLUMNS.map(indexType), 'text', 'text']
const RECORD_INSERT_COLUMNS = `account_id, db_id, table_name, data, ${INDEX_LIST}, created_at, updated_at`
const BY_ID = 'r.account_id = ? AND r.db_id = ? AND r.id = ?'
const RECORD_BY_ID = `SELECT ${RECORD_COLUMNS} FROM db_records r WHERE ${BY_ID}`

export class SqlDbsRepo implements DbsRepo {
  /** Record routes load their db on every request: read once per cache epoch, shared read-only. */
  private readonly withoutCount: EpochCache<DbView>
  /** Whether a db is being reindexed (its mark in db_reindexes), read once per cache epoch: a reindex's start and end move it. */
  private readonly reindexing: EpochCache<boolean>

  /** Hot statements built once: prepared statements are reused by their SQL text. */
  private readonly insertRecord: string
  private readonly insertRecordOfDb: string
  private readonly insertJournaled?: string
  private readonly typedRow: string
  /** The statements that read dbs with their record counts, and a db's count (the driver counts: DbsSearch.recordsCount). */
  private readonly dbs: ReturnType<typeof dbStatements>
  private readonly countOfDb: string

  constructor(private readonly sql: SqlPort, private readonly search: DbsSearch, private readonly journal = new JournalContext()) {
    this.withoutCount = sql.epochCache()
    this.reindexing = sql.epochCache()
    this.dbs = dbStatements(search.recordsCount)
    this.countOfDb = `SELECT ${search.recordsCount} AS n FROM dbs d WHERE d.id = ?`
    this.typedRow = `(${ROW_TYPES.map((t) => sql.dialect.typed(t)).join(', ')})`
    this.insertRecord = `INSERT INTO db_records (${RECORD_INSERT_COLUMNS}) VALUES ${this.typedRow} RETURNING *`
    // One statement: the db must still exist in the account (a db being deleted is not written to;
    // its records are purged, and the foreign key refuses a record of a db deleted meanwhile).
    this.insertRecordOfDb = `INSERT INTO db_records (${RECORD_INSERT_COLUMNS})
      SELECT ${this.typedRow.slice(1, -1)} WHERE EXISTS (SELECT 1 FROM dbs WHERE account_id = ? AND id = ? AND deleted_at IS NULL)
      RETURNING *`
    this.insertJournaled = search.journaledInsert?.(RECORD_INSERT_COLUMNS, this.typedRow.slice(1, -1))
  }

  async list(accountId: number): Promise<DbView[]> {
    return (await this.sql.all<DbRow>(this.dbs.list, [accountId])).map(toDb)
  }

  async get(accountId: number, idOrCode: string, options: {count?: boolean} = {}): Promise<DbView | null> {
    if (options.count !== false) return this.read(this.dbs.byId, accountId, idOrCode)
    return this.withoutCount.get(`${accountId}:${idOrCode}`, async () => {
      const view = await this.read(DB_BY_ID_NO_COUNT, accountId, idOrCode)
      return view && deepFreeze(view)
    })
  }

  private async read(select: DbById, accountId: number, idOrCode: string): Promise<DbView | null> {
    let row: DbRow | undefined
    if (/^\d+$/.test(idOrCode)) {
      const id = Number(idOrCode)
      if (!isRowId(id)) return null
      row = await this.sql.get<DbRow>(select.id, [accountId, id])
    } else row = await this.sql.get<DbRow>(select.code, [accountId, idOrCode])
    return row ? toDb(row) : null
  }

  async findByCode(code: string, accountId?: number): Promise<(DbView & {account_id: number}) | null> {
    const row = accountId === undefined
      ? await this.sql.get<DbRow>(`${DB_SELECT_NO_COUNT} WHERE d.code = ? ORDER BY d.public_methods = '{}', d.id LIMIT 1`, [code])
      : await this.sql.get<DbRow>(`${DB_SELECT_NO_COUNT} WHERE d.code = ? AND d.account_id = ?`, [code, accountId])
    return row ? {...toDb(row), account_id: row.account_id} : null
  }

  async create(accountId: number, input: DbInput): Promise<DbView> {
    const who = this.journal.current()
    const id = await txUnique(this.sql, function* (q) {
      yield* assertCodeFree(q, accountId, input, 0)
      const t = now()
      const created = (yield* q.get<{id: number}>(
        `INSERT INTO dbs (account_id, name, code, app_id, schema, public_methods, fields, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [accountId, input.name, input.code, input.app_id, input.schema === null ? null : JSON.stringify(input.schema),
          JSON.stringify(input.public_methods), JSON.stringify(input.fields), t, t],
      ))!.id
      yield* appendRow(q, who, {accountId, kind: 'db', id: created, op: 'create'})
      return created
    }, codeTaken)
    return (await this.get(accountId, String(id)))!
  }

  /**
   * Updates a db. With `reindex` (its schema changed), the change marks the db (db_reindexes) in
   * its own transaction, then its records' index columns are rewritten REINDEX_SLICE per
   * transaction with a turn of the event loop between; the db is read and written meanwhile, and
   * its queries read the records' data (no index column) until the last slice removes the mark.
   * Answers once the reindex is done; one cut short (the server stopped) is finished by
   * `finishReindexes` when `svc serve` starts.
   */
  async update(accountId: number, id: number, input: DbInput, reindex = false, check?: (current: DbView) => void): Promise<DbView | null> {
    if (!isRowId(id)) return null
    const {forUpdate} = this.sql.dialect
    const who = this.journal.current()
    const found = await txUnique(this.sql, function* (q) {
      // forUpdate: two schema changes of one db (on two instances) are marked one after the other.
      if (!(yield* q.get(`SELECT 1 FROM dbs WHERE account_id = ? AND id = ? AND deleted_at IS NULL${forUpdate}`, [accountId, id]))) return false
      if (check) check(toDb((yield* q.get<DbRow>(DB_BY_ID_NO_COUNT.id, [accountId, id]))!))
      yield* assertCodeFree(q, accountId, input, id)
      yield* q.run(
        `UPDATE dbs SET name = ?, code = ?, app_id = ?, schema = ?, public_methods = ?, fields = ?, updated_at = ?
         WHERE account_id = ? AND id = ?`,
        [input.name, input.code, input.app_id, input.schema === null ? null : JSON.stringify(input.schema),
          JSON.stringify(input.public_methods), JSON.stringify(input.fields), now(), accountId, id],
      )
      // From the start again: a reindex under way goes on with this schema (each slice reads it).
      if (reindex) {
        yield* q.run(`INSERT INTO db_reindexes (db_id, table_key, after_id) VALUES (?, '', 0)
          ON CONFLICT (db_id) DO UPDATE SET table_key = '', after_id = 0`, [id])
      }
      yield* appendRow(q, who, {accountId, kind: 'db', id, op: 'update'})
      return true
    }, codeTaken)
    if (found && reindex) await this.reindex(id)
    return found ? this.get(accountId, String(id)) : null
  }

  /** Finishes the reindexes a stopped server left (dbs still marked); stops between slices once `signal` aborts. */
  async finishReindexes(signal?: AbortSignal): Promise<number> {
    const marked = await this.sql.all<{db_id: number}>('SELECT db_id FROM db_reindexes ORDER BY db_id')
    for (const {db_id: dbId} of marked) {
      if (signal?.aborted) break
      await this.reindex(Number(dbId), signal)
    }
    return marked.length
  }

  /**
   * Rewrites the index columns of a marked db's records, one slice per transaction (reindex.ts
   * reindexSlice) until the last removes the mark. On SQLite the slices run on a thread of their
   * own (sqlite/reindex-thread.ts), the server's writes held during each, its reads going on.
   */
  private async reindex(dbId: number, signal?: AbortSignal): Promise<void> {
    const slice = reindexSlice({...this.sql.dialect, tableIs: this.search.tableIs, tableKey: this.search.tableKey}, dbId)
    const thread = await this.search.upkeep?.reindexThread?.()
    // After each slice, a pause as long as it took (at most REINDEX_PAUSE_MAX_MS) on SQLite. On the
    // server's thread (no reindex thread could start) other requests then have the thread at least
    // half the time: with one turn of the event loop between slices, a request (a few turns: read,
    // handler, answer) waited for about a slice per turn, and another account's p50 went up 6x
    // during a reindex (docs/benchmarks.md). On the reindex thread, the writes it holds wait for at
    // most one slice, and the file's write lock and the machine's cores are free half the time for
    // the server's writes, another process's (a CLI call) and the requests' own work. The slice's
    // time is its transaction's on the thread: on a loaded machine the messages' waits for a core
    // would have doubled the pause too.
    const paced = this.sql.dialect.name === 'sqlite'
    const step = thread ? () => thread.slice(dbId) : async () => {
      const started = performance.now()
      const more = await this.sql.tx(slice)
      return {more, ms: performance.now() - started}
    }
    try {
      for (let next = await step(); next.more; next = await step()) {
        const pause = paced ? Math.min(REINDEX_PAUSE_MAX_MS, Math.round(next.ms)) : 0
        await new Promise((resolve) => (pause > 0 ? setTimeout(resolve, pause) : setImmediate(resolve)))
        if (signal?.aborted) return
      }
    } finally {
      await thread?.stop()
    }
  }

  /**
   * Deletes a db: one short transaction marks it deleted (hidden from every read and write, its
   * code free) and journals it. Its records stay, so that a restore brings the db back with them
   * (docs/history.md), until retention: `purgeDeleted` then removes them PURGE_SLICE at a time with
   * a turn of the event loop between (SQLite runs statements on the server's own thread: one DELETE
   * of a 1M-record db held it ~38 s), then the row.
   */
  async delete(accountId: number, id: number, check?: (current: DbView) => void): Promise<boolean> {
    if (!isRowId(id)) return false
    const {forUpdate} = this.sql.dialect
    const who = this.journal.current()
    return this.sql.tx(function* (q) {
      const row = yield* q.get<Record<string, unknown>>(`SELECT * FROM dbs WHERE account_id = ? AND id = ? AND deleted_at IS NULL${forUpdate}`, [accountId, id])
      if (!row) return false
      // If-Match: checked against the definition as stored now, with the row locked (as update does).
      if (check) check(toDb((yield* q.get<DbRow>(DB_BY_ID_NO_COUNT.id, [accountId, id]))!))
      yield* q.run('UPDATE dbs SET deleted_at = ?, code = NULL WHERE account_id = ? AND id = ?', [now(), accountId, id])
      yield* appendEntry(q, who, {accountId, kind: 'db', id, op: 'delete', row, gone: true})
      return true
    })
  }

  /**
   * Purges the dbs marked deleted (all of them, or those deleted before `before`, an ISO time: the
   * journal's retention): each loses its records, then its row. Stops between slices once `signal` aborts.
   */
  async purgeDeleted(signal?: AbortSignal, before?: string): Promise<number> {
    const marked = before === undefined
      ? await this.sql.all<{id: number}>('SELECT id FROM dbs WHERE deleted_at IS NOT NULL ORDER BY id')
      : await this.sql.all<{id: number}>('SELECT id FROM dbs WHERE deleted_at IS NOT NULL AND deleted_at < ? ORDER BY id', [before])
    for (const {id} of marked) {
      if (signal?.aborted) break
      await this.purge(Number(id), signal)
    }
    return marked.length
  }

  /** A deleted db's records, PURGE_SLICE per transaction, then its row (its counts go with it). */
  private async purge(dbId: number, signal?: AbortSignal): Promise<void> {
    const slice = `DELETE FROM db_records WHERE id IN (SELECT id FROM db_records WHERE db_id = ? LIMIT ${PURGE_SLICE})`
    const held = await this.search.upkeep?.purging()
    const run = held?.run ?? ((sql: string, params: unknown[]) => this.sql.run(sql, params))
    try {
      while ((await run(slice, [dbId])) >= PURGE_SLICE) {
        await new Promise((resolve) => setImmediate(resolve))
        if (signal?.aborted) return
      }
    } finally {
      await held?.release(signal)
    }
    // Last: a purge cut short above leaves the mark, and the next server start finishes it.
    await this.sql.run('DELETE FROM dbs WHERE id = ? AND deleted_at IS NOT NULL', [dbId])
  }

  async usage(accountId: number, dbId: number, fieldsByTable: Map<string | null, string[]>): Promise<TableUsage[]> {
    const counts = await this.sql.all<{table_name: string | null; n: number | string}>(this.search.tableCounts, [accountId, dbId])
    const tables = new Map<string | null, number>(counts.map((r) => [tableNameOf(r.table_name), Number(r.n)]))
    for (const t of fieldsByTable.keys()) if (!tables.has(t)) tables.set(t, 0)
    const out: TableUsage[] = []
    for (const [tableName, n] of tables) {
      const fields = fieldsByTable.get(tableName) ?? []
      const usage: Record<string, number> = {}
      if (fields.length && n > 0) {
        const held = await this.fieldCounts(accountId, dbId, tableName, fields)
        fields.forEach((f, i) => (usage[f] = held[i]!))
      } else for (const f of fields) usage[f] = 0
      out.push({table_name: tableName, records_count: n, fields: usage})
    }
    return out
  }

  /** How many records of a table hold each field (not null), counted USAGE_SLICE records at a time in id order. */
  private async fieldCounts(accountId: number, dbId: number, tableName: string | null, fields: string[]): Promise<number[]> {
    const set = fields.map((f) => this.search.fieldSet(f))
    const sql = `SELECT count(*) AS n, max(r.id) AS last, ${set.map((s, i) => `count(*) FILTER (WHERE ${s.sql}) AS f${i}`).join(', ')}
      FROM (SELECT r.id, r.data FROM db_records r WHERE r.account_id = ? AND r.db_id = ? AND ${this.search.tableIs} AND r.id > ?
        ORDER BY r.id LIMIT ${USAGE_SLICE}) r`
    const totals = fields.map(() => 0)
    for (let after = 0; ;) {
      const row = (await this.sql.get<Record<string, number | string | null>>(sql,
        [...set.flatMap((s) => s.params), accountId, dbId, this.search.tableKey(tableName), after]))!
      totals.forEach((_, i) => (totals[i]! += Number(row[`f${i}`] ?? 0)))
      if (Number(row.n) < USAGE_SLICE) return totals
      after = Number(row.last)
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  // ---- records -----------------------------------------------------------------------------

  private rowParams(accountId: number, dbId: number, r: RecordWrite, t: string): unknown[] {
    return [accountId, dbId, this.search.tableKey(r.tableName), JSON.stringify(r.data), ...indexParams(r.index), t, t]
  }

  async createRecord(accountId: number, dbId: number, record: RecordWrite, maxRecords?: number): Promise<RecordView> {
    const row = this.rowParams(accountId, dbId, record, now())
    const {upkeep} = this.search
    const who = this.journal.current()
    const journal = (q: TxSql, inserted: RecordRow) => appendEntry(q, who,
      {accountId, kind: 'record', id: inserted.id, op: 'create', row: inserted as unknown as Record<string, unknown>, parentId: dbId})
    const {forUpdate} = this.sql.dialect
    const {insertRecord, insertRecordOfDb, countOfDb} = this
    let created: RecordRow | undefined
    try {
      if (maxRecords !== undefined) {
        // The count and the insert under the db row's lock: parallel creates (on any instance) queue there.
        created = await this.sql.queued(function* (q) {
          if (!(yield* q.get(`SELECT 1 FROM dbs WHERE account_id = ? AND id = ? AND deleted_at IS NULL${forUpdate}`, [accountId, dbId]))) throw noLongerExists()
          const counted = yield* q.get<{n: number | string}>(countOfDb, [dbId])
          if (Number(counted!.n) >= maxRecords) throw publicDbFull(maxRecords)
          const inserted = (yield* q.get<RecordRow>(insertRecord, row))!
          if (upkeep) yield* upkeep.created(q, inserted.id)
          yield* journal(q, inserted)
          return inserted
        })
      } else if (this.insertJournaled) {
        // The insert and its journal entry as one statement (PostgreSQL, which keeps its index itself).
        created = await this.sql.write<RecordRow>(this.insertJournaled,
          [...row, accountId, dbId, who.door, who.client, who.actor.type, who.actor.id, who.actor.name, who.requestId, new Date().toISOString()])
      } else {
        // The insert, the search index's upkeep where the store keeps it (SQLite), and the journal: one body.
        created = await this.sql.queued(function* (q) {
          const inserted = yield* q.get<RecordRow>(insertRecordOfDb, [...row, accountId, dbId])
          if (inserted && upkeep) yield* upkeep.created(q, inserted.id)
          if (inserted) yield* journal(q, inserted)
          return inserted
        })
      }
    } catch (error) {
      throw this.sql.dialect.isForeignKeyViolation(error) ? noLongerExists() : error
    }
    upkeep?.written()
    if (!created) throw noLongerExists()
    return toRecordView(created)
  }

  async createRecords(accountId: number, dbId: number, records: RecordWrite[]): Promise<number> {
    const {forShare} = this.sql.dialect
    const {upkeep} = this.search
    const t = now()
    const rows = records.map((r) => this.rowParams(accountId, dbId, r, t))
    const typedRow = this.typedRow
    const who = this.journal.current()
    try {
      await this.sql.tx(function* (q) {
        if (!(yield* q.get(`SELECT 1 FROM dbs WHERE account_id = ? AND id = ? AND deleted_at IS NULL${forShare}`, [accountId, dbId]))) throw noLongerExists()
        const inserted: Record<string, unknown>[] = []
        for (let i = 0; i < rows.length; i += IMPORT_CHUNK) {
          const chunk = rows.slice(i, i + IMPORT_CHUNK)
          inserted.push(...(yield* q.all<Record<string, unknown>>(
            `INSERT INTO db_records (${RECORD_INSERT_COLUMNS}) VALUES ${chunk.map(() => typedRow).join(', ')} RETURNING *`, chunk.flat())))
        }
        for (const r of inserted) yield* appendEntry(q, who, {accountId, kind: 'record', id: r.id as number, op: 'create', row: r, parentId: dbId})
      })
    } catch (error) {
      throw this.sql.dialect.isForeignKeyViolation(error) ? noLongerExists() : error
    }
    await upkeep?.imported()
    return records.length
  }

  /** The SELECT of one record (`lock` appended), in the visitor's scope when given; null when no record can match. */
  private recordById(accountId: number, dbId: number, id: number, scope?: QuerySpec['scope'], lock = ''): Condition | null {
    if (scope && scope.value === '') return null
    if (!isRowId(id)) return null
    if (!scope) return {sql: `${RECORD_BY_ID}${lock}`, params: [accountId, dbId, id]}
    const scoped = this.search.scope(scope.field, scope.value)
    return {sql: `${RECORD_BY_ID} AND ${scoped.sql}${lock}`, params: [accountId, dbId, id, ...scoped.params]}
  }

  async getRecord(accountId: number, dbId: number, id: number, scope?: QuerySpec['scope']): Promise<RecordView | null> {
    const select = this.recordById(accountId, dbId, id, scope)
    const row = select && await this.sql.get<RecordRow>(select.sql, select.params)
    return row ? toRecordView(row) : null
  }

  async updateRecord(
    accountId: number, dbId: number, id: number, build: (existing: RecordView) => RecordWrite, scope?: QuerySpec['scope'],
  ): Promise<RecordView | null> {
    // forUpdate: a concurrent update of the same record (another instance) waits, then builds on this one's result.
    const select = this.recordById(accountId, dbId, id, scope, this.sql.dialect.forUpdate)
    if (!select) return null
    const {search} = this
    const who = this.journal.current()
    const updated = await this.sql.queued(function* (q) {
      const existing = yield* q.get<RecordRow>(select.sql, select.params)
      if (!existing) return null
      const next = build(toRecordView(existing))
      const row = yield* q.get<RecordRow>(UPDATE_RECORD,
        [search.tableKey(next.tableName), JSON.stringify(next.data), ...indexParams(next.index), now(), accountId, dbId, id])
      if (search.upkeep) yield* search.upkeep.updated(q)
      if (row) yield* appendRow(q, who, {accountId, kind: 'record', id, op: 'update', parentId: dbId})
      return row
    })
    search.upkeep?.written()
    return updated ? toRecordView(updated) : null
  }

  async deleteRecord(
    accountId: number, dbId: number, id: number, scope?: QuerySpec['scope'], check?: (existing: RecordView) => void,
  ): Promise<boolean> {
    // The record is read and locked, checked (If-Match), deleted and journaled in one transaction.
    const select = this.recordById(accountId, dbId, id, scope, this.sql.dialect.forUpdate)
    if (!select) return false
    const who = this.journal.current()
    return this.sql.queued(function* (q) {
      const existing = yield* q.get<RecordRow>(select.sql, select.params)
      if (!existing) return false
      check?.(toRecordView(existing))
      const row = (yield* q.get<Record<string, unknown>>('SELECT * FROM db_records WHERE id = ?', [id]))!
      if ((yield* q.run('DELETE FROM db_records WHERE account_id = ? AND db_id = ? AND id = ?', [accountId, dbId, id])) === 0) return false
      yield* appendEntry(q, who, {accountId, kind: 'record', id, op: 'delete', row, gone: true, parentId: dbId})
      return true
    })
  }

  async query(accountId: number, dbId: number, spec: QuerySpec): Promise<RecordView[]> {
    // While a schema change rewrites the index columns in slices, they hold two plans' values: the data decides.
    const reindexing = await this.reindexing.get(String(dbId), async () =>
      Boolean(await this.sql.get('SELECT 1 FROM db_reindexes WHERE db_id = ?', [dbId])))
    return (await this.search.query(accountId, dbId, reindexing ? readingData(spec) : spec)).map(toRecordView)
  }
}

/**
 * A code is unique in its account; a db with public methods also needs a code no other account's
 * public db has. Every code change takes a transaction lock on the code: a public code claimed in
 * two accounts at once (two instances) is checked one after the other, as the unique index only
 * spans one account.
 */
function* assertCodeFree(q: TxSql, accountId: number, input: DbInput, exceptId: number): TxBody<void> {
  if (input.code === null) return
  yield* q.lock(`db_code:${input.code}`)
  if ((yield* q.get('SELECT 1 FROM dbs WHERE account_id = ? AND code = ? AND id != ?', [accountId, input.code, exceptId])) ||
    (Object.keys(input.public_methods).length > 0 &&
      (yield* q.get(`SELECT 1 FROM dbs WHERE code = ? AND account_id != ? AND public_methods != '{}'`, [input.code, accountId])))) {
    throw codeTaken()
  }
}
