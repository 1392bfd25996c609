/**
 * What a backup reads of a store and what a restore writes into one, table by table, in the values
 * both drivers share (numbers, text, null). The archive (src/services/backup/) never sees SQL; the
 * drivers (./sqlite.ts, ./pg.ts) never see the archive.
 */

/** A table as an archive carries it: its name and its columns in the order of every row. */
export interface TableShape {
  name: string
  columns: string[]
}

/** One value of a row: what both stores hold in the tables an archive carries. */
export type CellValue = string | number | null

/** The rows of one account (an account export): see ./account.ts for what belongs to it in each table. */
export interface AccountScope {
  accountId: number
}

/** Whole lines of an archive's rows as bytes (each a row's JSON array and a newline), and how many rows they are. */
export interface LineChunk {
  bytes: Buffer[]
  rows: number
}

/** A consistent view of a store (one read transaction) from which every carried table is read. */
export interface StoreSnapshot {
  readonly driver: 'sqlite' | 'pg'
  /** The migrations applied to the store (an archive is restored only by an svc that knows them all). */
  migrations(): Promise<number[]>
  /** The carried tables, parents before the tables that reference them. */
  tables(): Promise<TableShape[]>
  /** How many rows the table holds in the snapshot (of the account only, with a scope). */
  count(table: TableShape, scope?: AccountScope): Promise<number>
  /** The rows of a table in primary-key order, in batches (bounded memory); of one account with a scope. */
  rows(table: TableShape, batchSize: number, scope?: AccountScope): AsyncGenerator<CellValue[][]>
  /**
   * The rows of a whole table already as the archive's lines (each row's JSON array, made by the
   * database: one string a row crosses into JavaScript, not one value a column), in batches; absent
   * where the driver has no faster way than rows().
   */
  lines?(table: TableShape, batchSize: number): AsyncGenerator<string[]>
  /**
   * The same lines as their UTF-8 bytes, as the database sent them (no decoding in JavaScript), in
   * chunks of whole lines; read by several connections at once on one snapshot where the driver can
   * (PostgreSQL: `readers` connections on one exported snapshot). Preferred to lines() where present.
   */
  lineChunks?(table: TableShape, options: {readers: number; rangeRows?: number}): AsyncGenerator<LineChunk>
  /** Queries inside the snapshot (an export reads the account's name). */
  readonly sql: import('./account.js').BackupSql
  /** Ends the read transaction and closes the connection. */
  close(): Promise<void>
}

/** A store being filled by a restore: everything in one transaction, committed or rolled back whole. */
export interface StoreLoader {
  readonly driver: 'sqlite' | 'pg'
  migrations(): Promise<number[]>
  /** The carried tables of the target (to check an archive's columns against). */
  tables(): Promise<TableShape[]>
  /** Whether any account (or any carried row) exists in the target. */
  isEmpty(): Promise<boolean>
  /** Deletes every carried row (a restore with `--force` over a non-empty target). */
  clear(): Promise<void>
  /**
   * Before a restore's rows (into a target with none): the carried tables' indexes and triggers are
   * dropped, and made again at commit, in the same transaction, with what the triggers derive rebuilt
   * in bulk (an index built once from all rows is far faster than one updated row by row).
   */
  bulkLoad(): Promise<void>
  /** Inserts rows; `skipExisting`: a row whose key the target holds already is left as it is (content-addressed builds). */
  insert(table: TableShape, rows: CellValue[][], options?: {skipExisting?: boolean}): Promise<void>
  /** `n` ids no row of `table` holds or will be given by another writer, ascending (an import's renumbering). */
  newIds(table: string, column: string, n: number): Promise<number[]>
  /** Takes the transaction locks the store's own writes take on these names (PostgreSQL; nothing on SQLite, whose write transaction excludes every other writer). */
  lock(names: readonly string[]): Promise<void>
  /** Queries inside the loader's transaction. */
  readonly sql: import('./account.js').BackupSql
  /** Makes what was inserted durable (and identity counters continue after the restored ids). */
  commit(): Promise<void>
  rollback(): Promise<void>
}

/**
 * Tables an archive does not carry: what the store derives from the carried ones (record counts and
 * the full-text index, rebuilt by triggers and the indexer as records are inserted), caches, the
 * migrations list (the manifest says which ran), and what instances agree on while they run.
 */
export const DERIVED_TABLES: ReadonlySet<string> = new Set([
  'schema_migrations', 'cache_epoch', 'db_record_counts', 'svc_rate_limits',
])

/** Whether a table is carried by an archive (FTS5's shadow tables and derived tables are not). */
export function isCarried(name: string): boolean {
  return !DERIVED_TABLES.has(name) && !name.startsWith('db_records_fts') && !name.startsWith('sqlite_')
}

/**
 * Columns that hold secrets: carried only when the archive is made with a passphrase (then
 * encrypted), else left out (null, or the row left out for `server_secrets`).
 */
export const SECRET_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  resources: ['secret_token'],
  server_secrets: ['value'],
}

/** Orders tables so that each comes after the tables it references (`refs`: table → referenced tables). */
export function parentsFirst(names: string[], refs: Map<string, Set<string>>): string[] {
  const out: string[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (name: string) => {
    if (state.get(name) === 'done' || state.get(name) === 'visiting') return
    state.set(name, 'visiting')
    for (const parent of [...(refs.get(name) ?? [])].sort()) if (parent !== name && names.includes(parent)) visit(parent)
    state.set(name, 'done')
    out.push(name)
  }
  for (const name of [...names].sort()) visit(name)
  return out
}
