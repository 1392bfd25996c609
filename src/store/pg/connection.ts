/**
 * The PostgreSQL connection of the store: one `pg` Pool (it reconnects by itself: a database that
 * goes away and comes back needs no restart, and no client is kept once it failed), SQL written
 * with `?` placeholders like the SQLite driver's (turned into `$n` once per SQL text), driver
 * errors mapped to SvcError, transactions retried on serialization failures, and the cache epoch
 * read at most once per turn of the event loop.
 */
import type {Pool, PoolClient, QueryConfig, QueryResultRow} from 'pg'
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

/**
 * Statements run as named prepared statements: each connection parses a text once, then only
 * binds and executes it (PostgreSQL's CPU for an indexed read ~30 % less, a create's ~15 %:
 * docs/benchmarks.md). At most PREPARED_MAX distinct texts a process are named, each at most
 * PREPARED_TEXT_MAX characters (each connection keeps the ones it ran until it closes: a request
 * can make a search statement of many conditions, and its shapes are many); other texts run
 * unnamed. Plans stay custom
 * (`plan_cache_mode`, set on each connection by the store): a generic plan made for one db's
 * parameters would serve another's, a tiny db walking a big one's rows. `SVC_DATABASE_PREPARE=0`
 * turns it off (a pooler in transaction mode that does not keep prepared statements).
 */
export const PREPARED_MAX = 500
export const PREPARED_TEXT_MAX = 2000
const prepared = new Map<string, string>()
let names = 0
export const preparing = () => process.env.SVC_DATABASE_PREPARE !== '0'

function statement(sql: string, values: unknown[]): QueryConfig {
  const text = numbered(sql)
  let name = prepared.get(text)
  if (name === undefined && names < PREPARED_MAX && text.length <= PREPARED_TEXT_MAX && preparing()) prepared.set(text, (name = `svc_${names++}`))
  return {text, values, name}
}

/**
 * The pool's connection settings for `url`: every connection keeps custom plans for its prepared
 * statements (`plan_cache_mode`, a startup option, merged with the URL's own `options`).
 */
export function connectionOptions(url: string): {connectionString: string; options?: string} {
  if (!preparing()) return {connectionString: url}
  const plans = '-c plan_cache_mode=force_custom_plan'
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  const own = parsed?.searchParams.get('options')
  if (!parsed || !own) return {connectionString: url, options: plans}
  parsed.searchParams.delete('options')
  return {connectionString: parsed.toString(), options: `${own} ${plans}`}
}

/** A prepared statement whose result columns changed under it (another instance migrated the schema): it fails each time it runs. */
const staleStatement = (e: unknown) => pgCode(e) === '0A000' && /cached plan must not change result type/.test((e as Error).message ?? '')

/** The text of a stale statement gets a new name (prepared again, on each connection) or, past PREPARED_MAX, runs unnamed. */
function forgetStale(config: QueryConfig): void {
  if (prepared.get(config.text) !== config.name) return
  if (names < PREPARED_MAX) prepared.set(config.text, `svc_${names++}`)
  else prepared.delete(config.text)
}

/** Runs a statement; a stale prepared one is run again under its new name (a transaction is run again whole: PgDb.tx). */
async function run(target: Pool | PoolClient, inTx: boolean, sql: string, values: unknown[]) {
  const config = statement(sql, values)
  try {
    return await target.query(config)
  } catch (e) {
    if (!config.name || !staleStatement(e)) throw e
    forgetStale(config)
    if (inTx) throw e
    return target.query(statement(sql, values))
  }
}

function queryable(target: Pool | PoolClient, inTx = false): Q {
  return {
    all: (sql, params = []) => mapped(async () => (await run(target, inTx, sql, params)).rows),
    get: (sql, params = []) => mapped(async () => (await run(target, inTx, sql, params)).rows[0]),
    run: (sql, params = []) => mapped(async () => (await run(target, inTx, sql, params)).rowCount ?? 0),
  }
}

/**
 * Statements that leave the cache epoch alone: a SELECT (with or without FOR UPDATE), and a write
 * of records: no trigger of db_records bumps the epoch (migration 090 CACHED_TABLES) and no table
 * references it, so nothing cascades from it into a cached table. A record create is then one
 * round trip, not an epoch query too at the next request.
 */
const KEEPS_EPOCH = /^\s*(SELECT\b|(INSERT INTO|UPDATE|DELETE FROM) db_records\b)/i

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

  /** Any other statement may have bumped the epoch: once it is done, the pushed value needs a query again. */
  private wrote<T>(sql: string, done: Promise<T>): Promise<T> {
    if (!this.epochs || KEEPS_EPOCH.test(sql)) return done
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
        const result = await fn(queryable(client, true))
        await client.query('COMMIT')
        return result
      } catch (e) {
        const code = pgCode(e)
        if (isUnavailable(e) && !(code === '40001' || code === '40P01')) broken = e
        else await client.query('ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError))
        if ((code === '40001' || code === '40P01' || staleStatement(e)) && attempt < TX_ATTEMPTS) continue
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
