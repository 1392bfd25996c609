/**
 * The SQL port over the PostgreSQL pool (src/store/sql/port.ts): `?` placeholders numbered once
 * per SQL text, driver errors mapped to SvcError, a transaction body run on one client of the pool
 * (again from its start on a serialization failure), the cache epoch read once per turn.
 */
import type {Dialect, EpochCache, SqlPort, SqlStep, TxBody, TxSql} from '../sql/port.js'
import {driveAsync, txSql} from '../sql/port.js'
import {isForeignKeyViolation, isUniqueViolation, type PgDb, PgEpochCache, type Q} from './connection.js'

export const pgDialect: Dialect = {
  name: 'pg',
  // svc_fold (migration 001) lowers ASCII letters only: the same matches as SQLite's LIKE.
  likeCi: (column) => `svc_fold(${column}) LIKE svc_fold(?) ESCAPE '\\'`,
  orderCi: (column) => `svc_fold(${column})`,
  forUpdate: ' FOR UPDATE',
  forShare: ' FOR SHARE',
  inArray: (column, type) => `${column} = ANY(?::${type}[])`,
  arrayParam: (values) => values,
  jsonArrayAgg: (expression, orderBy) => `coalesce(json_agg(${expression} ORDER BY ${orderBy}), '[]')`,
  millisBetween: (later, earlier) => `(extract(epoch FROM (${later}::timestamptz - ${earlier}::timestamptz)) * 1000)::bigint`,
  isUniqueViolation,
  isForeignKeyViolation,
  typed: (type) => `?::${type}`,
}

export class PgPort implements SqlPort {
  readonly dialect = pgDialect
  constructor(readonly db: PgDb) {}

  get<R>(sql: string, params?: unknown[]): Promise<R | undefined> {
    return this.db.get(sql, params) as Promise<R | undefined>
  }

  all<R>(sql: string, params?: unknown[]): Promise<R[]> {
    return this.db.all(sql, params) as Promise<R[]>
  }

  run(sql: string, params?: unknown[]): Promise<number> {
    return this.db.run(sql, params)
  }

  write<R>(sql: string, params?: unknown[]): Promise<R | undefined> {
    return this.db.get(sql, params) as Promise<R | undefined>
  }

  tx<T>(body: (q: TxSql) => TxBody<T>): Promise<T> {
    return this.db.tx((q) => driveAsync(body(txSql), (step) => exec(q, step)))
  }

  queued<T>(body: (q: TxSql) => TxBody<T>): Promise<T> {
    return this.tx(body)
  }

  queuedRun(sql: string, params?: unknown[]): Promise<number> {
    return this.db.run(sql, params)
  }

  epochCache<V>(maxEntries = 1000): EpochCache<V> {
    return new PgEpochCache<V>(this.db, maxEntries)
  }
}

/** Runs one statement of a transaction body on the transaction's client. */
function exec(q: Q, step: SqlStep): Promise<unknown> {
  switch (step.op) {
    case 'get': return q.get(step.sql, step.params)
    case 'all': return q.all(step.sql, step.params)
    case 'run': return q.run(step.sql, step.params)
    case 'lock': return q.get("SELECT pg_advisory_xact_lock(hashtext('svc:' || ?::text))", [step.key])
  }
}
