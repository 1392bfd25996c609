/**
 * The cluster side of the PostgreSQL store: N `svc serve` instances over one database.
 *
 * - Each instance holds a session advisory lock `(INSTANCE_NS, key)` on a connection of its own for
 *   as long as it lives, and stamps its runs `pg:<key>`: a run's owner is alive exactly while that
 *   lock is held (pg_locks), whatever host it runs on. When the instance dies — or its connection
 *   does — PostgreSQL releases the lock, and the leader reaps its pending runs.
 * - The upkeep leader holds `(LEADER_NS, 0)` on the same session (pg_try_advisory_lock); another
 *   instance takes over at its next upkeep once that session ends.
 * - Rate limits and budgets are rows of an UNLOGGED table (`svc_rate_limits`: no WAL, emptied after a crash,
 *   which only forgets counters), updated in one upsert per hit on the database's clock, so every
 *   instance counts against the same bucket.
 *
 * The session reconnects on its own after the database comes back (0.2 s, then up to 5 s apart)
 * and takes its key again.
 */
import type {Pool, PoolClient, Client} from 'pg'
import {refilled, secondsUntilPositive} from '../../core/budgets.js'
import type {ClusterRepo} from '../cluster/types.js'
import {mapPgError} from './connection.js'

/** Advisory lock namespaces ('svcI', 'svcL' as int4). */
const INSTANCE_NS = 0x73766349
const LEADER_NS = 0x7376634c
/** Rate-limit rows idle this long are deleted by the leader's upkeep (longer than any window in use). */
const EXPIRE_MS = 24 * 3600 * 1000

const NOW_MS = `(extract(epoch FROM clock_timestamp()) * 1000)::float8`

const SCHEMA = `
CREATE UNLOGGED TABLE IF NOT EXISTS svc_rate_limits (
  bucket text NOT NULL,
  key text NOT NULL,
  n float8 NOT NULL,
  at_ms float8 NOT NULL,
  ok boolean NOT NULL,
  PRIMARY KEY (bucket, key)
)`

const TAKE_TOKEN = `
INSERT INTO svc_rate_limits AS r (bucket, key, n, at_ms, ok)
VALUES ($1, $2, $3::float8 - 1, ${NOW_MS}, $3::float8 >= 1)
ON CONFLICT (bucket, key) DO UPDATE SET
  n = least($3::float8, r.n + (EXCLUDED.at_ms - r.at_ms) * $4::float8)
      - CASE WHEN least($3::float8, r.n + (EXCLUDED.at_ms - r.at_ms) * $4::float8) >= 1 THEN 1 ELSE 0 END,
  ok = least($3::float8, r.n + (EXCLUDED.at_ms - r.at_ms) * $4::float8) >= 1,
  at_ms = EXCLUDED.at_ms
RETURNING ok, n`

const COUNT_HIT = `
INSERT INTO svc_rate_limits AS r (bucket, key, n, at_ms, ok)
VALUES ($1, $2, 1, ${NOW_MS}, true)
ON CONFLICT (bucket, key) DO UPDATE SET
  n = CASE WHEN EXCLUDED.at_ms - r.at_ms >= $3::float8 THEN 1 ELSE r.n + 1 END,
  at_ms = CASE WHEN EXCLUDED.at_ms - r.at_ms >= $3::float8 THEN EXCLUDED.at_ms ELSE r.at_ms END
RETURNING n`

/** Charges $3 to the window of $5 ms when the total stays within $4 (all SET terms read the old row). */
const CHARGE_WITHIN = `
INSERT INTO svc_rate_limits AS r (bucket, key, n, at_ms, ok)
VALUES ($1, $2, CASE WHEN $3::float8 <= $4::float8 THEN $3::float8 ELSE 0 END, ${NOW_MS}, $3::float8 <= $4::float8)
ON CONFLICT (bucket, key) DO UPDATE SET
  n = CASE WHEN EXCLUDED.at_ms - r.at_ms >= $5::float8 THEN EXCLUDED.n
           WHEN r.n + $3::float8 <= $4::float8 THEN r.n + $3::float8 ELSE r.n END,
  ok = CASE WHEN EXCLUDED.at_ms - r.at_ms >= $5::float8 THEN EXCLUDED.ok ELSE r.n + $3::float8 <= $4::float8 END,
  at_ms = CASE WHEN EXCLUDED.at_ms - r.at_ms >= $5::float8 THEN EXCLUDED.at_ms ELSE r.at_ms END
RETURNING ok`

/** Budgets (src/core/budgets.ts): the stored balance and time of each hit's bucket ($1..$2 arrays, one per hit; absent: full). */
const BUDGET_BALANCES = `
SELECT t.i::int AS i, r.n, r.at_ms, ${NOW_MS} AS now_ms
FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(b, k, i)
JOIN svc_rate_limits r ON r.bucket = t.b AND r.key = t.k`

/**
 * Charges $5 to each hit's bucket (refilled first, up to its capacity $3 at $4 a ms), into debt if
 * need be; a bucket seen for the first time starts full. A row another instance inserts meanwhile
 * is charged by the ON CONFLICT branch (its refill of a moment ago is left out).
 */
const BUDGET_SPEND = `
WITH t AS (SELECT * FROM unnest($1::text[], $2::text[], $3::float8[], $4::float8[]) AS t(b, k, cap, rate)),
up AS (
  UPDATE svc_rate_limits r SET n = least(t.cap, r.n + greatest(0, ${NOW_MS} - r.at_ms) * t.rate) - $5::float8, at_ms = ${NOW_MS}, ok = true
  FROM t WHERE r.bucket = t.b AND r.key = t.k
  RETURNING r.bucket, r.key)
INSERT INTO svc_rate_limits AS r (bucket, key, n, at_ms, ok)
SELECT t.b, t.k, t.cap - $5::float8, ${NOW_MS}, true FROM t
WHERE NOT EXISTS (SELECT 1 FROM up WHERE up.bucket = t.b AND up.key = t.k)
ON CONFLICT (bucket, key) DO UPDATE SET n = r.n - $5::float8`

const HOLDS_LOCK = `
SELECT EXISTS (
  SELECT 1 FROM pg_locks
  WHERE locktype = 'advisory' AND classid = $1::oid AND objid = $2::oid AND objsubid = 2 AND granted
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
) AS alive`

export interface PgClusterOptions {
  /** The pool of the store (rate limits, liveness checks). */
  pool: Pool
  /** The connection string, for this instance's own session (its advisory locks). */
  connectionString: string
  log?: (line: string) => void
}

/** Creates the rate-limit table if needed and takes this instance's advisory lock. */
export async function openPgCluster(options: PgClusterOptions): Promise<ClusterRepo> {
  const {pool} = options
  const {default: pg} = await import('pg')
  await withClient(pool, async (client) => {
    await client.query('BEGIN')
    try {
      // Serialised: concurrent CREATE TABLE IF NOT EXISTS can still collide on the type name.
      await client.query('SELECT pg_advisory_xact_lock($1, 1)', [INSTANCE_NS])
      await client.query(SCHEMA)
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    }
  })

  let key = randomKey()
  let session: Client | null = null
  let connecting: Promise<Client> | null = null
  let leader = false
  let closed = false
  let retryTimer: NodeJS.Timeout | undefined

  /** Opens the session and takes `(INSTANCE_NS, key)`, picking another key if it is somehow taken. */
  const connect = async (): Promise<Client> => {
    const client = new pg.Client({connectionString: options.connectionString})
    client.on('error', () => undefined) // reported through the failing query or 'end'
    await client.connect()
    try {
      for (let attempt = 0; ; attempt++) {
        const {rows} = await client.query('SELECT pg_try_advisory_lock($1, $2) AS ok', [INSTANCE_NS, key])
        if (rows[0].ok) break
        if (attempt > 20) throw new Error('cannot take an instance lock')
        key = randomKey()
      }
    } catch (error) {
      await client.end().catch(() => undefined)
      throw error
    }
    client.once('end', () => {
      if (session !== client) return
      session = null
      leader = false
      if (!closed) {
        options.log?.('cluster: the database session ended; reconnecting')
        scheduleReconnect(200)
      }
    })
    return client
  }

  const ensureSession = async (): Promise<Client> => {
    if (session) return session
    if (closed) throw new Error('the store is closed')
    connecting ??= connect()
      .then((client) => {
        if (closed) {
          void client.end().catch(() => undefined)
          throw new Error('the store is closed')
        }
        session = client
        return client
      })
      .finally(() => (connecting = null))
    return connecting
  }

  const scheduleReconnect = (delayMs: number) => {
    if (closed || retryTimer) return
    retryTimer = setTimeout(() => {
      retryTimer = undefined
      ensureSession().catch(() => scheduleReconnect(Math.min(5000, delayMs * 2)))
    }, delayMs)
    retryTimer.unref()
  }

  await ensureSession()

  return {
    get runner() {
      return `pg:${key}`
    },
    async instanceAlive(runner) {
      const m = /^pg:(\d{1,10})$/.exec(runner)
      // Runs are stamped pg:<key> on PostgreSQL: any other name has no instance to be alive.
      if (!m) return false
      const rows = await query(pool, HOLDS_LOCK, [String(INSTANCE_NS), m[1]])
      return rows[0].alive === true
    },
    async lead() {
      try {
        const client = await ensureSession()
        if (leader) return true
        const {rows} = await client.query('SELECT pg_try_advisory_lock($1, 0) AS ok', [LEADER_NS])
        leader = rows[0].ok === true
        return leader
      } catch (error) {
        throw mapPgError(error)
      }
    },
    async takeToken(bucket, k, capacity, perMinute) {
      const rate = perMinute / 60_000
      const rows = await query(pool, TAKE_TOKEN, [bucket, k, capacity, rate])
      if (rows[0].ok) return 0
      return Math.max(1, Math.ceil((1 - Number(rows[0].n)) / rate / 1000))
    },
    async countHit(bucket, k, windowSeconds) {
      const rows = await query(pool, COUNT_HIT, [bucket, k, windowSeconds * 1000])
      return Number(rows[0].n)
    },
    async chargeWithin(bucket, k, amount, budget, windowSeconds) {
      if (budget <= 0) return true
      const rows = await query(pool, CHARGE_WITHIN, [bucket, k, amount, budget, windowSeconds * 1000])
      return rows[0].ok === true
    },
    async budgetWaits(hits) {
      if (!hits.length) return []
      const rows = await query(pool, BUDGET_BALANCES, [hits.map((h) => h.bucket), hits.map((h) => h.key)])
      const waits = hits.map(() => 0)
      for (const row of rows) {
        const hit = hits[Number(row.i) - 1]!
        waits[Number(row.i) - 1] = secondsUntilPositive(hit, refilled(hit, Number(row.n), Number(row.at_ms), Number(row.now_ms)))
      }
      return waits
    },
    async spendBudgets(hits, amount) {
      if (!hits.length) return
      await query(pool, BUDGET_SPEND, [hits.map((h) => h.bucket), hits.map((h) => h.key), hits.map((h) => h.capacity),
        hits.map((h) => h.perMinute / 60_000), amount])
    },
    async expire() {
      await query(pool, `DELETE FROM svc_rate_limits WHERE at_ms < ${NOW_MS} - $1::float8`, [EXPIRE_MS])
    },
    async close() {
      if (closed) return
      closed = true
      if (retryTimer) clearTimeout(retryTimer)
      const client = session ?? (await connecting?.catch(() => null)) ?? null
      session = null
      // Ending the session releases its advisory locks (this instance's key and the leadership).
      await client?.end().catch(() => undefined)
    },
  }
}

/** A query on the pool with the store's error mapping (a lost database is a 503, not a 500). */
async function query(pool: Pool, sql: string, params: unknown[]): Promise<any[]> {
  try {
    return (await pool.query(sql, params)).rows
  } catch (error) {
    throw mapPgError(error)
  }
}

function randomKey(): number {
  return 1 + Math.floor(Math.random() * 0x7ffffffe)
}

async function withClient<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  try {
    return await fn(client)
  } finally {
    client.release()
  }
}
