/**
 * The PostgreSQL half of the suite: with `SVC_TEST_DATABASE_URL` set (`npm run test:pg`, `.ci/run`),
 * every world gets its own database cloned from a migrated template (`svc_template`, built once
 * per run by test/helpers/pg-setup.ts) and dropped afterwards; without it, everything is SQLite.
 */
import {randomBytes} from 'node:crypto'
import type {Store} from '../../src/store/index.js'

/** The server URL of the test cluster (any database on it; `postgres` usually), or undefined for SQLite. */
export const PG_URL = process.env.SVC_TEST_DATABASE_URL?.trim() || undefined
/** Whether this run is the PostgreSQL half (for `describe.skipIf(pg)` on SQLite internals, `runIf(pg)` on PostgreSQL ones). */
export const pg = PG_URL !== undefined
/**
 * The template every test database is cloned from (migrated once per run by test/helpers/pg-setup.ts,
 * which names it after the run: two runs on one cluster, as several people share one, would
 * otherwise drop and rebuild each other's template while the other clones it).
 */
export const TEMPLATE_DB = process.env.SVC_TEST_TEMPLATE_DB || 'svc_template'

/** `postgres://…/NAME` on the same server as `url`. */
export function databaseUrl(name: string, url = PG_URL!): string {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

/** Runs one statement on the cluster's maintenance database (CREATE/DROP DATABASE). */
export async function adminQuery(sql: string, params: unknown[] = []): Promise<any[]> {
  const {default: pgLib} = await import('pg')
  const client = new pgLib.Client({connectionString: PG_URL})
  await client.connect()
  try {
    return (await client.query(sql, params)).rows
  } finally {
    await client.end()
  }
}

/**
 * Ends a pool of a test once its connections have closed. pg-pool's `end()` resolves as soon as it
 * lets go of its clients, while they may still be closing; a `DROP DATABASE … WITH (FORCE)` right
 * after terminates them, and the error reaches a pool with no 'error' listener: an uncaught
 * exception in the test file (seen under CI's load in cluster.test.ts).
 */
export async function endPool(pool: import('pg').Pool | undefined): Promise<void> {
  if (!pool) return
  let open = pool.totalCount
  const closed = new Promise<void>((resolve) => {
    if (open === 0) resolve()
    pool.on('remove', () => {
      if (--open <= 0) resolve()
    })
  })
  await pool.end()
  await closed
}

/** A fresh database cloned from the template: its URL and how to drop it. */
export async function createTestDatabase(): Promise<{url: string; drop(): Promise<void>}> {
  const name = `svc_t_${process.pid}_${randomBytes(4).toString('hex')}`
  // CREATE DATABASE … TEMPLATE fails while anything else is connected to the template: retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`)
      break
    } catch (error) {
      if (attempt >= 50 || !/being accessed by other users/.test((error as Error).message)) throw error
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return {
    url: databaseUrl(name),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => undefined),
  }
}

/** Opens the store a test asks for: PostgreSQL at `databaseUrl` when given, else the SQLite file of `dataDir`. */
export async function openTestStore(dataDir: string, databaseUrl?: string): Promise<Store> {
  const {openStore, openStoreAt} = await import('../../src/store/index.js')
  return databaseUrl ? openStoreAt({dataDir, databaseUrl}) : openStore(dataDir)
}

/** Account `acme` with an admin `admin` in a data dir (or the database at `databaseUrl`) no server has open yet: the admin's token. */
export async function seedAdminToken(dataDir: string, databaseUrl?: string): Promise<string> {
  const store = await openTestStore(dataDir, databaseUrl)
  try {
    const account = await store.accounts.createAccount('acme')
    const admin = await store.accounts.addUser({accountId: account.id, login: 'admin', role: 'admin'})
    return await store.accounts.createToken(admin.id)
  } finally {
    await store.close()
  }
}

/**
 * Raw SQL on a world's database, for the few tests that set up a state no route can (a stale
 * build hash, a row of another area): SQLite with `?` placeholders, translated to `$n` for
 * PostgreSQL. Returns the rows (none for a statement without a result).
 */
export async function rawQuery(target: {dataDir: string; databaseUrl?: string}, sql: string, params: unknown[] = []): Promise<any[]> {
  if (target.databaseUrl) {
    const {default: pgLib} = await import('pg')
    const client = new pgLib.Client({connectionString: target.databaseUrl})
    await client.connect()
    try {
      let n = 0
      return (await client.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows
    } finally {
      await client.end()
    }
  }
  const {default: Database} = await import('better-sqlite3')
  const {join} = await import('node:path')
  const db = new Database(join(target.dataDir, 'svc.sqlite'))
  try {
    db.pragma('busy_timeout = 10000')
    const statement = db.prepare(sql)
    if (statement.reader) return statement.all(...params)
    statement.run(...params)
    return []
  } finally {
    db.close()
  }
}
