/**
 * The PostgreSQL connection of the store: one `pg` Pool (it reconnects by itself: a database that
 * goes away and comes back needs no restart, and no client is kept once it failed), SQL written
 * with `?` placeholders like the SQLite driver's (turned into `$n` once per SQL text), driver
 * errors mapped to SvcError, transactions retried on serialization failures, and the cache epoch
 * read at most once per turn of the event loop.
 */
import type {Pool, PoolClient, QueryResultRow} from 'pg'
import {badRequest, SvcError, validation} from '../../core/errors.js'
import {EpochEntries} from '../cache-entries.js'
import type {EpochListener} from './epoch-listener.js'

/** What a repository runs SQL on: the pool, or the client of a transaction. */
export interface Q {
  all<R extends QueryResultRow = any>(sql: string, params?: unknown[]): Promise<R[]>
  get<R extends QueryResultRow = any>(sql: string, params?: unknown[]): Promise<R | undefined>
  /** Rows changed by an INSERT/UPDATE/DELETE. */
  run(sql: string, params?: unknown[]): Promise<number>
}

const placeholders = new Map<string, string>()
/** `?` → `$1, $2, …` (the driver's SQL never holds a `?` inside a literal). */
export function numbered(sql: string): string {
  let out = placeholders.get(sql)
  if (out === undefined) {
    let n = 0
    out = sql.replace(/\?/g, () => `$${++n}`)
    if (placeholders.size >= 2000) placeholders.clear()
    placeholders.set(sql, out)
  }
  return out
}

/** SQLSTATEs of a lost connection, a server shutting down or a transaction to retry. */
const UNAVAILABLE = new Set(['40001', '40P01', '57P01', '57P02', '57P03', '53300', '55P03', '25P03'])
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH'])

/** The original driver error of a mapped one (repositories check 23505 on it). */
export const pgCode = (e: unknown): string | undefined => {
  const own = (e as {code?: unknown}).code
  if (typeof own === 'string' && /^[0-9A-Z]{5}$/.test(own)) return own
  const cause = (e as {cause?: {code?: unknown}}).cause?.code
  return typeof cause === 'string' ? cause : undefined
}
export const isUniqueViolation = (e: unknown) => pgCode(e) === '23505'
export const isForeignKeyViolation = (e: unknown) => pgCode(e) === '23503'

/** Whether an error means the database could not be reached or asked for a retry (503). */
export function isUnavailable(e: unknown): boolean {
  const code = (e as {code?: unknown}).code
  if (typeof code === 'string' && (UNAVAILABLE.has(code) || code.startsWith('08') || NETWORK.has(code))) return true
  const message = (e as Error)?.message ?? ''
  return /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(message)
}

/**
 * Driver errors that are about the database, not the request, become SvcError: a unique violation
 * a 422 (repositories that know the field map it first), a full disk 507, a lost connection or a
 * serialization failure 503 (the HTTP layer adds Retry-After). Others pass through as they are.
 */
export function mapPgError(e: unknown): unknown {
  if (e instanceof SvcError) return e
  const code = pgCode(e)
  if (code === '23505') return withCause(validation({base: ['has already been taken']}), e)
  // Text PostgreSQL cannot hold (a NUL character, `\u0000` in JSON), where SQLite stores it.
  if (code === '22021' || code === '22P05') return withCause(validation({base: ['contains a NUL character (\\u0000), which the database cannot store']}), e)
  if (code === '22003' || code === '22P02') return withCause(badRequest('a value is out of range'), e)
  if (code === '53100' || code === '53200') {
    return withCause(new SvcError('storage_full', 507, 'storage full: the database server has no space left; nothing was written'), e)
  }
  if (isUnavailable(e)) {
    return withCause(new SvcError('unavailable', 503, 'storage unavailable: the database could not be reached; nothing was written'), e)
  }
  return e
}

function withCause(error: SvcError, cause: unknown): SvcError {
  Object.defineProperty(error, 'cause', {value: cause, enumerable: false})
  return error
}

async function mapped<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (e) {
    throw mapPgError(e)
  }
}

function queryable(target: Pool | PoolClient): Q {
  return {
    all: (sql, params = []) => mapped(async () => (await target.query(numbered(sql), params)).rows),
    get: (sql, params = []) => mapped(async () => (await target.query(numbered(sql), params)).rows[0]),
    run: (sql, params = []) => mapped(async () => (await target.query(numbered(sql), params)).rowCount ?? 0),
  }
}

/** Statements that change nothing (a SELECT, with or without FOR UPDATE). */
const READ = /^\s*SELECT\b/i

/** Serialization failures and deadlocks are retried this many times before answering 503. */
const TX_ATTEMPTS = 4

export class PgDb implements Q {
  private readonly q: Q
  /** The cache epoch of this turn of the event loop (a promise, so concurrent readers share one query). */
  private epochThisTurn: Promise<number> | undefined

  /** `epochs`: the cache epoch as notifications push it (src/store/pg/epoch-listener.ts); without it, read per turn. */
  constructor(readonly pool: Pool, private readonly epochs?: EpochListener) {
    this.q = queryable(pool)
  }

  all<R extends QueryResultRow = any>(sql: string, params?: unknown[]) {
    return this.wrote(sql, this.q.all<R>(sql, params))
  }
  get<R extends QueryResultRow = any>(sql: string, params?: unknown[]) {
    return this.wrote(sql, this.q.get<R>(sql, params))
  }
  run(sql: string, params?: unknown[]) {
    return this.wrote(sql, this.q.run(sql, params))
  }

  /** A statement other than a SELECT may have bumped the epoch: once it is done, the pushed value needs a query again. */
  private wrote<T>(sql: string, done: Promise<T>): Promise<T> {
    if (!this.epochs || READ.test(sql)) return done
    return done.finally(() => this.epochs!.wrote())
  }

  /**
   * Runs `fn` in a transaction (READ COMMITTED; bodies that check then write lock what they check
   * with FOR UPDATE, or write with ON CONFLICT). Retried on a serialization failure or deadlock.
   * A client whose connection failed is destroyed, never given back to the pool.
   */
  async tx<T>(fn: (q: Q) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let client: PoolClient
      try {
        client = await this.pool.connect()
      } catch (e) {
        throw mapPgError(e)
      }
      let broken: unknown
      try {
        await client.query('BEGIN')
        const result = await fn(queryable(client))
        await client.query('COMMIT')
        return result
      } catch (e) {
        const code = pgCode(e)
        if (isUnavailable(e) && !(code === '40001' || code === '40P01')) broken = e
        else await client.query('ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError))
        if ((code === '40001' || code === '40P01') && attempt < TX_ATTEMPTS) continue
        throw mapPgError(e)
      } finally {
        this.epochThisTurn = undefined
        this.epochs?.wrote()
        client.release(broken instanceof Error ? broken : broken ? new Error('connection failed') : undefined)
      }
    }
  }

  /**
   * The cache epoch (migration 90): a version row that triggers bump on every committed change of
   * accounts, users, teams, groups, departments, tokens or dbs, by any instance. Read at most once
   * per turn of the event loop; a write of this instance forgets the turn's value, so its own
   * changes are seen at once, and another instance's by every request that starts after it committed.
   */
  cacheEpoch(): Promise<number> {
    const pushed = this.epochs?.current()
    if (pushed !== undefined) return Promise.resolve(pushed)
    if (!this.epochThisTurn) {
      const at = this.epochs?.mark()
      const read = this.get<{n: number}>('SELECT n FROM cache_epoch WHERE id = 1').then((row) => {
        if (at) this.epochs!.confirm(row!.n, at)
        return row!.n
      })
      this.epochThisTurn = read
      setImmediate(() => {
        if (this.epochThisTurn === read) this.epochThisTurn = undefined
      })
      read.catch(() => {
        if (this.epochThisTurn === read) this.epochThisTurn = undefined
      })
    }
    return this.epochThisTurn
  }
}

/** A bounded map of values read at a cache epoch; a stale or missing entry is read again. */
export class PgEpochCache<V> {
  private readonly entries: EpochEntries<V>
  constructor(private readonly db: PgDb, maxEntries = 1000) {
    this.entries = new EpochEntries(maxEntries)
  }

  async get(key: string, read: () => Promise<V | null | undefined>): Promise<V | null> {
    const epoch = await this.db.cacheEpoch()
    return this.entries.at(key, epoch) ?? this.entries.keep(key, epoch, await read())
  }
}

/** Ids past the SQL integer range name no row (binding one would fail as out of range). */
export const isRowId = (id: number) => Number.isSafeInteger(id) && id >= 0
