/**
 * The PostgreSQL store (`svc serve --database-url postgres://…`, `SVC_DATABASE_URL`): one `pg`
 * Pool for N instances over one database. Imported only when a database URL is given.
 */
import {resolve} from 'node:path'
import pg from 'pg'
import {sqlRepos} from '../sql/repos.js'
import type {Store} from '../types.js'
import {openPgCluster} from './cluster.js'
import {connectionOptions, mapPgError, PgDb} from './connection.js'
import {SqlDbsRepo} from '../dbs/repo.js'
import {pgDbsSearch} from './dbs-search.js'
import {EpochListener} from './epoch-listener.js'
import {migrate} from './migrate.js'
import {PgPort} from './port.js'
import {JournalContext} from '../journal/writer.js'
import {JournalSignal} from '../journal/signal.js'

/**
 * Rows read as the SQLite driver reads them: bigint ids and counts as numbers (ids stay far below
 * 2^53), json as its text (parsed by the repositories, the client's key order kept).
 */
const PARSERS: Record<number, (value: string) => unknown> = {
  20: Number, // int8
  114: (v) => v, // json
  3802: (v) => v, // jsonb
}
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    PARSERS[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
}

export interface PgStoreOptions {
  /** Connections of this instance (default 10, or `SVC_DATABASE_POOL`). */
  max?: number
  log?: (line: string) => void
}

/** Opens the PostgreSQL store at `url`, running the pending migrations once across instances. */
export async function openPostgresStore(url: string, dataDir: string, options: PgStoreOptions = {}): Promise<Store> {
  const pool = new pg.Pool({
    ...connectionOptions(url),
    max: options.max ?? (Number(process.env.SVC_DATABASE_POOL) || 10),
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    types,
  })
  // An idle client whose connection dies (the database restarts) emits here; the pool drops it and
  // makes a new one on the next request. Without a listener the process would exit.
  pool.on('error', (error) => options.log?.(`database connection lost: ${error.message}`))
  try {
    await migrate(pool)
  } catch (error) {
    await pool.end().catch(() => undefined)
    throw mapPgError(error)
  }
  let cluster
  try {
    cluster = await openPgCluster({pool, connectionString: url, log: options.log})
  } catch (error) {
    await pool.end().catch(() => undefined)
    throw mapPgError(error)
  }
  const signal = new JournalSignal()
  const epochs = new EpochListener(url, options.log, signal)
  const db = new PgDb(pool, epochs)
  const sql = new PgPort(db)
  let closing: Promise<void> | undefined
  const context = new JournalContext()
  return {
    driver: 'pg',
    ...sqlRepos(sql, context, undefined, signal),
    dbs: new SqlDbsRepo(sql, pgDbsSearch(sql), context),
    cluster,
    dataDir: resolve(dataDir),
    // PostgreSQL checkpoints itself.
    maintenance: () => ({stop: async () => undefined}),
    readers: () => ({start: () => undefined, stop: async () => undefined}),
    close() {
      closing ??= Promise.all([cluster.close().catch(() => undefined), epochs.close()]).then(() => pool.end())
      return closing
    },
  }
}
