/** Repository interface of the dbs area: what http needs from storage, implementation-neutral. */
import type {DbInput} from '../../core/dbs/db.js'
import type {QuerySpec} from '../../core/dbs/query.js'
import type {Data, IndexValues} from '../../core/dbs/records.js'
import type {TxBody, TxSql} from '../sql/port.js'
import type {RecordRow} from './rows.js'

/** The database and record objects of the API are the contract's (src/core/contract/dbs.ts). */
export type {DbView, RecordView, TableUsage} from '../../core/contract/dbs.js'
import type {DbView, RecordView, TableUsage} from '../../core/contract/dbs.js'


/** A record ready to be written: data converted, index column values computed. */
export interface RecordWrite {
  tableName: string | null
  data: Data
  index: IndexValues
}


/** A SQL condition with `?` placeholders and its bound values. */
export interface Condition {sql: string; params: unknown[]}

/**
 * What the dbs repository (repo.ts, written once) leaves to its driver (`sqlite/dbs-search.ts`,
 * `pg/dbs-search.ts`): how a record's table name is stored and its JSON fields are read, the
 * record search (SQLite: FTS5 trigram candidates; PostgreSQL: pg_trgm after a probe walk), and the
 * upkeep of a search index the database does not keep itself.
 */
export interface DbsSearch {
  /** The stored `table_name` of a table name: a db without tables stores NULL in SQLite, '' in PostgreSQL (indexable there). */
  tableKey(tableName: string | null): string | null
  /** The condition on `r.table_name` that finds a `tableKey` bound after it. */
  readonly tableIs: string
  /** The condition that the record `r`'s field `field` holds the string `value` (public per-visitor scope). */
  scope(field: string, value: string): Condition
  /** The condition that the record `r`'s field `field` is present and not null. */
  fieldSet(field: string): Condition
  /** The page of records a query spec selects. */
  query(accountId: number, dbId: number, spec: QuerySpec): Promise<RecordRow[]>
  /** A SQL expression: the number of records of the db `d` (a row of dbs). */
  readonly recordsCount: string
  /** The statement of a db's record count per stored table name (`table_name`, `n`), tables with records only: parameters the account's and the db's ids. */
  readonly tableCounts: string
  /** Absent where the database keeps its search index itself (PostgreSQL's trigram index). */
  readonly upkeep?: SearchUpkeep
  /** A record's insert with its journal entry as one statement (PostgreSQL: one round trip), given the insert's columns and values. */
  journaledInsert?(columns: string, values: string): string
}

/**
 * The upkeep of SQLite's full-text index (sqlite/fts-indexer.ts) by record writes: `created` and
 * `updated` run in the write's transaction, `written` after a record create or update, `imported`
 * after an import's batch.
 */
export interface SearchUpkeep {
  created(q: TxSql, recordId: number): TxBody<void>
  updated(q: TxSql): TxBody<void>
  /** After an import's batch committed: indexes what is queued (in its own short transactions) before the import answers. */
  imported(): Promise<void>
  written(): void
  /**
   * Before a db's records are purged in slices: the index's costly upkeep of mass deletes held back
   * until `release`. `run`, when given, runs one slice's statement (a write) off the server's thread.
   */
  purging(): Promise<{run?(sql: string, params: unknown[]): Promise<number>; release(signal?: AbortSignal): Promise<void>}>
  /** For a schema change's reindex: a thread that runs its slices off the server's thread, or undefined where none can start. */
  reindexThread?(): Promise<ReindexThread | undefined>
}

/** Runs a reindex's slices (reindex.ts reindexSlice) on a connection and thread of their own, one at a time. */
export interface ReindexThread {
  /** Runs the next slice of db `dbId`'s reindex: `more` while slices are left, `ms` how long it took on its thread. */
  slice(dbId: number): Promise<{more: boolean; ms: number}>
  stop(): Promise<void>
}

export interface DbsRepo {
  list(accountId: number): Promise<DbView[]>
  /** By id (digits) or code, inside the account. `count: false` skips records_count (answered as -1) for speed. */
  get(accountId: number, idOrCode: string, options?: {count?: boolean}): Promise<DbView | null>
  /** Public methods: the database with this code (records_count -1). A code with public methods names one db
   *  server-wide (create/update refuse a taken one); among older duplicates a public one wins, then the oldest.
   *  With `accountId`, only that account's db (an app origin resolves inside its app's account). */
  findByCode(code: string, accountId?: number): Promise<(DbView & {account_id: number}) | null>
  /** 422 `{code: ['has already been taken']}` on a duplicate code in the account, or on a code another account's
   *  public db uses when this db has public methods. */
  create(accountId: number, input: DbInput): Promise<DbView>
  /**
   * Updates the db; with `reindex` (its schema changed), every record's index columns are rebuilt
   * under the stored schema, in slices with turns of the event loop between, before it answers: the
   * db is read and written meanwhile, its queries reading the records' data until the rebuild ends.
   * `check` sees the stored db inside the write, before it changes, and may throw (If-Match).
   */
  update(accountId: number, id: number, input: DbInput, reindex?: boolean, check?: (current: DbView) => void): Promise<DbView | null>
  /** Finishes the reindexes a stopped server left half done; stops between slices once `signal` aborts. */
  finishReindexes(signal?: AbortSignal): Promise<number>
  /**
   * Deletes the db; `check` sees the stored db inside the write, before it goes, and may throw (If-Match).
   * The db is hidden (and its code free) at once and journaled; its records stay until the journal's retention
   * (a restore brings them back), then `purgeDeleted` removes them in slices.
   */
  delete(accountId: number, id: number, check?: (current: DbView) => void): Promise<boolean>
  /** Purges dbs marked deleted (before `before`, an ISO time, when given: the journal's retention keeps them until then); stops between slices once `signal` aborts. */
  purgeDeleted(signal?: AbortSignal, before?: string): Promise<number>
  /** Record counts per table, and per named field of each table. */
  usage(accountId: number, dbId: number, fieldsByTable: Map<string | null, string[]>): Promise<TableUsage[]>

  /** With `maxRecords`: throws publicDbFull when the db holds that many (counted and inserted in one step, under a lock). */
  createRecord(accountId: number, dbId: number, record: RecordWrite, maxRecords?: number): Promise<RecordView>
  /** Inserts many records in one transaction (import). */
  createRecords(accountId: number, dbId: number, records: RecordWrite[]): Promise<number>
  getRecord(accountId: number, dbId: number, id: number, scope?: QuerySpec['scope']): Promise<RecordView | null>
  /** Reads, transforms (`build` gets the stored record) and writes in one transaction; null when absent. */
  updateRecord(
    accountId: number, dbId: number, id: number, build: (existing: RecordView) => RecordWrite, scope?: QuerySpec['scope'],
  ): Promise<RecordView | null>
  /** `check` sees the record inside the write, before it is deleted, and may throw (If-Match). */
  deleteRecord(accountId: number, dbId: number, id: number, scope?: QuerySpec['scope'], check?: (existing: RecordView) => void): Promise<boolean>
  query(accountId: number, dbId: number, spec: QuerySpec): Promise<RecordView[]>
}
