// The cache epoch on PostgreSQL without a query per read (src/store/pg/epoch-listener.ts): while
// an instance listens to `svc_cache_epoch`, reading the epoch costs no round trip; a change by
// another instance arrives as a notification; a write of its own is seen at once; a lost listening
// connection means reading the epoch per turn again until it is back. Counted on the statements
// the instance's pool sends. PostgreSQL only (SVC_TEST_DATABASE_URL).
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Pool} from 'pg'
import {PgDb} from '../../src/store/pg/connection.js'
import {EpochListener} from '../../src/store/pg/epoch-listener.js'
import {openStoreAt, type Store} from '../../src/store/index.js'
import {createTestDatabase, endPool, pg} from '../helpers/pg.js'
import {tempDir} from '../helpers/world.js'

const nextTurn = () => new Promise((r) => setImmediate(r))

describe.runIf(pg)('PostgreSQL cache epoch pushed by notifications', () => {
  let url: string
  let drop: () => Promise<void>
  let migrated: Store
  let pool: Pool
  let other: Pool
  let listener: EpochListener
  let db: PgDb
  /** Queries of the epoch this instance sent. */
  let epochQueries = 0

  beforeAll(async () => {
    const created = await createTestDatabase()
    url = created.url
    drop = created.drop
    migrated = await openStoreAt({dataDir: tempDir(), databaseUrl: url})
    const {default: pgLib} = await import('pg')
    // bigint as a number, as the store's pool reads it (src/store/pg/index.ts)
    const types = {getTypeParser: ((oid: number, format: never) => (oid === 20 ? Number : pgLib.types.getTypeParser(oid, format))) as never}
    pool = new pgLib.Pool({connectionString: url, max: 2, types})
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>
    pool.query = ((...args: unknown[]) => {
      // A statement is its text, or a prepared statement's config ({name, text, values}).
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as {text?: string} | undefined)?.text
      if (text?.includes('FROM cache_epoch')) epochQueries++
      return query(...args)
    }) as typeof pool.query
    other = new pgLib.Pool({connectionString: url, max: 1})
    listener = new EpochListener(url)
    db = new PgDb(pool, listener)
  })
  afterAll(async () => {
    await listener?.close()
    await endPool(pool)
    await endPool(other)
    await migrated?.close()
    await drop?.()
  })

  /** Reads the epoch once per turn, `n` times; returns the queries that took. */
  const readTurns = async (n: number) => {
    const before = epochQueries
    for (let i = 0; i < n; i++) {
      await db.cacheEpoch()
      await nextTurn()
    }
    return epochQueries - before
  }
  /** A change of a cached table by another instance (a statement trigger bumps the epoch even for no row). */
  const otherInstanceWrites = () => other.query('UPDATE tokens SET kind = kind WHERE false')
  const listening = () => expect.poll(() => readTurns(2), {timeout: 30_000, interval: 20}).toBe(0)

  it('once listening, reads of the epoch send no query', async () => {
    await listening()
    // A value confirmed by a query is trusted for 250 ms: 40 reads in a row take a few queries at most, not 40.
    expect(await readTurns(40)).toBeLessThan(10)
  })

  it("another instance's change arrives as a notification", async () => {
    await listening()
    const before = await db.cacheEpoch()
    await otherInstanceWrites()
    await expect.poll(() => db.cacheEpoch(), {timeout: 30_000, interval: 5}).toBe(before + 1)
  })

  it('a write of this instance is seen at its next read', async () => {
    await listening()
    const before = await db.cacheEpoch()
    await db.run('UPDATE tokens SET kind = kind WHERE false')
    expect(await db.cacheEpoch()).toBe(before + 1)
    await db.tx((q) => q.run('UPDATE dbs SET name = name WHERE false'))
    expect(await db.cacheEpoch()).toBe(before + 2)
    // A write of records bumps nothing: the pushed value is kept (no query of the epoch follows it);
    // a write of a cached table makes the instance forget it. Counted on the listener's writes, not
    // on queries a moment later (a trusted value also expires after a while: that reads the clock).
    const forgotten = () => listener.mark().writes
    const kept = forgotten()
    await db.run('UPDATE db_records SET data = data WHERE false')
    expect(forgotten()).toBe(kept)
    await db.run('UPDATE users SET name = name WHERE false')
    expect(forgotten()).toBe(kept + 1)
  })

  it('a lost listening connection: the epoch is read per turn, then listening comes back', async () => {
    await listening()
    await other.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN svc%' AND datname = current_database()")
    await expect.poll(() => readTurns(3), {timeout: 30_000, interval: 20}).toBe(3)
    await listening()
  })
})
