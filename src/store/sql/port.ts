/**
 * The SQL port: what a repository runs its SQL on, whichever driver is under it (SQLite or
 * PostgreSQL). Repositories are written once against it (`src/store/<area>/repo.ts`); each driver
 * implements it (`sqlite/port.ts`, `pg/port.ts`) and keeps only what is its own (connection,
 * pool, migrations, group commit...). SQL is written with `?` placeholders, in the SQL both
 * databases speak; what differs is asked of the `Dialect`.
 *
 * A transaction body is a generator: `yield* q.get(...)` hands a statement to the driver and
 * resumes with its result. SQLite runs the whole body synchronously inside one `BEGIN IMMEDIATE`
 * (nothing else of the process runs between its statements, as before); PostgreSQL runs it on one
 * client of the pool between BEGIN and COMMIT, awaiting each statement, and runs it again from the
 * start on a serialization failure. A body does database work only: it may be run twice.
 */

/** One statement of a transaction body, or a lock it takes. */
export type SqlStep =
  | {op: 'get' | 'all' | 'run'; sql: string; params: unknown[]}
  | {op: 'lock'; key: string}

/** What a transaction body is: statements yielded to the driver, then its result. */
export type TxBody<T> = Generator<SqlStep, T, unknown>

/** The statements of a transaction body (`yield* q.get(sql, params)`). */
export interface TxSql {
  get<R = any>(sql: string, params?: unknown[]): TxBody<R | undefined>
  all<R = any>(sql: string, params?: unknown[]): TxBody<R[]>
  /** Rows changed by an INSERT/UPDATE/DELETE. */
  run(sql: string, params?: unknown[]): TxBody<number>
  /**
   * Serializes the transactions that lock the same key until they end (a count checked before an
   * insert): an advisory lock in PostgreSQL; nothing in SQLite, whose write transaction holds the
   * database's one write lock from its start.
   */
  lock(key: string): TxBody<void>
}

export const txSql: TxSql = {
  get: <R>(sql: string, params: unknown[] = []) => step<R | undefined>({op: 'get', sql, params}),
  all: <R>(sql: string, params: unknown[] = []) => step<R[]>({op: 'all', sql, params}),
  run: (sql: string, params: unknown[] = []) => step<number>({op: 'run', sql, params}),
  lock: (key: string) => step<void>({op: 'lock', key}),
}

/** Yields one step to the driver and returns what the driver resumed the body with. */
function* step<R>(s: SqlStep): TxBody<R> {
  return (yield s) as R
}

/** A read cache valid while the cache epoch (migration 090) is unchanged. */
export interface EpochCache<V> {
  /** The cached value of `key`, else `read()` (cached unless it returns null or undefined). */
  get(key: string, read: () => Promise<V | null | undefined>): Promise<V | null>
}

/** What differs between the SQL of the drivers, asked by the repositories. */
export interface Dialect {
  readonly name: 'sqlite' | 'pg'
  /** `column LIKE ? ESCAPE '\'` where ASCII letters match either case (SQLite's LIKE), the pattern a parameter. */
  likeCi(column: string): string
  /** An ORDER BY key of a text column where ASCII letters sort regardless of case (SQLite's NOCASE). */
  orderCi(column: string): string
  /** Appended to a SELECT in a transaction that writes what it read (` FOR UPDATE`, or nothing where the transaction holds the write lock). */
  readonly forUpdate: string
  /** Appended to a SELECT in a transaction that keeps what it read from being changed or deleted until it ends (` FOR SHARE`, or nothing). */
  readonly forShare: string
  /** `column` is one of the values of an array parameter (bound as `arrayParam(values)`). */
  inArray(column: string, type: 'bigint' | 'text'): string
  /** The parameter of an `inArray` condition. */
  arrayParam(values: readonly (number | string)[]): unknown
  /** The aggregate that makes the JSON array of its rows' `expression` in `orderBy` order (`[]` for no row). */
  jsonArrayAgg(expression: string, orderBy: string): string
  /** Whole milliseconds from the timestamp (ISO text) `earlier` to `later`, both SQL expressions. */
  millisBetween(later: string, earlier: string): string
  /** Whether a driver error (possibly already mapped) was a unique-constraint violation. */
  isUniqueViolation(error: unknown): boolean
  /** Whether a driver error (possibly already mapped) was a foreign-key violation. */
  isForeignKeyViolation(error: unknown): boolean
  /**
   * A bound parameter of SQL type `type` where nothing in the statement gives it one (a VALUES
   * list, the SELECT of an INSERT): `?::type` in PostgreSQL; `?` in SQLite, whose columns convert.
   */
  typed(type: string): string
}

/** Where a repository runs its SQL. */
export interface SqlPort {
  readonly dialect: Dialect
  get<R = any>(sql: string, params?: unknown[]): Promise<R | undefined>
  all<R = any>(sql: string, params?: unknown[]): Promise<R[]>
  /** One write statement in its own transaction; the rows it changed. */
  run(sql: string, params?: unknown[]): Promise<number>
  /** One write statement with RETURNING in its own transaction; its first row. */
  write<R = any>(sql: string, params?: unknown[]): Promise<R | undefined>
  /** Runs a transaction body (see above) and gives its result; a throw rolls it back. */
  tx<T>(body: (q: TxSql) => TxBody<T>): Promise<T>
  /**
   * A short write transaction that may share its commit with the other queued writes of this turn
   * of the event loop (SQLite's group commit: see sqlite/group-commit.ts; a throw rolls back this
   * body alone, and it may be run twice); PostgreSQL runs it as `tx`.
   */
  queued<T>(body: (q: TxSql) => TxBody<T>): Promise<T>
  /** One write statement, queued as `queued` in SQLite, run on its own in PostgreSQL; the rows it changed. */
  queuedRun(sql: string, params?: unknown[]): Promise<number>
  /** A bounded read cache over this database's cache epoch. */
  epochCache<V>(maxEntries?: number): EpochCache<V>
}

/**
 * Runs a transaction body whose own check refuses a taken value; a unique-constraint violation
 * (another instance won the race after the check) becomes the same refusal, `taken()`.
 */
export async function txUnique<T>(sql: SqlPort, body: (q: TxSql) => TxBody<T>, taken: () => Error): Promise<T> {
  try {
    return await sql.tx(body)
  } catch (error) {
    if (sql.dialect.isUniqueViolation(error)) throw taken()
    throw error
  }
}

/**
 * Deletes the row `id` of an account's `table` (a repository's constant, never input). The row is
 * read with `columns` and locked; with `check` (If-Match) it is shown to `check` as `view` makes it
 * (which may throw); it is deleted and `after` (the journal's entry) runs with the whole row, all in
 * one transaction. False when there is no such row.
 */
export async function deleteChecked<Row, V>(
  sql: SqlPort, table: string, columns: string, accountId: number, id: string | number, view: (row: Row) => V, check?: (current: V) => void,
  after?: (q: TxSql, row: Record<string, unknown>) => TxBody<unknown>,
): Promise<boolean> {
  const remove = `DELETE FROM ${table} WHERE account_id = ? AND id = ?`
  if (!check && !after) return (await sql.run(remove, [accountId, id])) > 0
  const {forUpdate} = sql.dialect
  return sql.tx(function* (q) {
    const current = yield* q.get<Row>(`SELECT ${after ? '*' : columns} FROM ${table} WHERE account_id = ? AND id = ?${forUpdate}`, [accountId, id])
    if (!current) return false
    check?.(view(current))
    if ((yield* q.run(remove, [accountId, id])) === 0) return false
    if (after) yield* after(q, current as Record<string, unknown>)
    return true
  })
}

/** Runs a transaction body synchronously, each statement by `exec` (a throw is thrown into the body). */
export function driveSync<T>(body: TxBody<T>, exec: (step: SqlStep) => unknown): T {
  let next = body.next()
  while (!next.done) {
    let result: unknown
    try {
      result = exec(next.value)
    } catch (error) {
      next = body.throw(error)
      continue
    }
    next = body.next(result)
  }
  return next.value
}

/** Runs a transaction body, awaiting each statement of `exec` (a rejection is thrown into the body). */
export async function driveAsync<T>(body: TxBody<T>, exec: (step: SqlStep) => Promise<unknown>): Promise<T> {
  let next = body.next()
  while (!next.done) {
    let result: unknown
    try {
      result = await exec(next.value)
    } catch (error) {
      next = body.throw(error)
      continue
    }
    next = body.next(result)
  }
  return next.value
}

/** Ids past the SQL integer range name no row (binding one would fail as out of range in PostgreSQL). */
export const isRowId = (id: number) => Number.isSafeInteger(id) && id >= 0

/** A read that may walk much of a table: on SQLite it runs on a reader thread when the server started them (sqlite/reader-pool.ts); `lane` is the account's. */
export type LongRead = <R>(sql: string, params: unknown[], lane: string) => Promise<R[]>
