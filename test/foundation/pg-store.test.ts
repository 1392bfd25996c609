// The PostgreSQL store driver (src/store/pg/) with several instances over one database: migrations
// run once when they start together, caches follow another instance's writes at its next request,
// check-then-write bodies hold under concurrent writers, and driver errors map to SvcError.
// PostgreSQL only (SVC_TEST_DATABASE_URL); the same behaviours on SQLite are covered by
// foundation/store.test.ts, caches.test.ts and concurrency.test.ts.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {SvcError} from '../../src/core/errors.js'
import {openStoreAt, type Store} from '../../src/store/index.js'
import {connectionOptions, PgDb, PREPARED_TEXT_MAX} from '../../src/store/pg/connection.js'
import {MIGRATIONS} from '../../src/store/pg/migrations/index.js'
import {adminQuery, createTestDatabase, endPool, pg} from '../helpers/pg.js'

describe.runIf(pg)('PostgreSQL store: N instances over one database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-pg-store-'))
  const dropped: (() => Promise<void>)[] = []
  const opened: Store[] = []
  const open = async (url: string) => {
    const store = await openStoreAt({dataDir, databaseUrl: url})
    opened.push(store)
    return store
  }
  let url: string
  let a: Store
  let b: Store

  beforeAll(async () => {
    const db = await createTestDatabase()
    dropped.push(db.drop)
    url = db.url
    a = await open(url)
    b = await open(url)
  })
  afterEach(async () => {
    await new Promise((r) => setImmediate(r)) // the next request starts on a new turn
  })
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()))
    for (const drop of dropped) await drop()
    rmSync(dataDir, {recursive: true, force: true})
  })

  it('three instances starting together on an empty database migrate it once', async () => {
    const name = `svc_t_empty_${process.pid}_${Date.now()}`
    await adminQuery(`CREATE DATABASE ${name}`)
    const u = new URL(url)
    u.pathname = `/${name}`
    dropped.push(() => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => undefined))
    const stores = await Promise.all([open(u.toString()), open(u.toString()), open(u.toString())])
    expect(stores.map((s) => s.driver)).toEqual(['pg', 'pg', 'pg'])
    const {default: pgLib} = await import('pg')
    const client = new pgLib.Client({connectionString: u.toString()})
    await client.connect()
    try {
      const rows = (await client.query('SELECT id, count(*)::int AS n FROM schema_migrations GROUP BY id ORDER BY id')).rows
      // Every migration the driver has, each once.
      expect(rows.map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id))
      expect(rows.length).toBeGreaterThan(10)
      expect(rows.every((r) => r.n === 1)).toBe(true)
    } finally {
      await client.end()
    }
  })

  // The other instance learns of the change from its cache epoch notification (src/store/pg/epoch-listener.ts):
  // normally before its next request, at the latest once its pushed epoch is no longer trusted (250 ms).
  it('a token revoked through one instance is refused by the other as soon as the change is notified', async () => {
    const account = await a.accounts.createAccount('acme')
    const user = await a.accounts.addUser({accountId: account.id, login: 'ada', role: 'admin'})
    const token = await a.accounts.createToken(user.id)
    expect((await b.accounts.authenticate(token))?.login).toBe('ada') // cached by b now
    await new Promise((r) => setImmediate(r))
    await a.accounts.revokeToken(token)
    await expect.poll(() => b.accounts.authenticate(token), {timeout: 30_000, interval: 5}).toBeNull()
  })

  it('a schema changed through one instance is what the other reads once notified', async () => {
    const account = await a.accounts.createAccount('schemas')
    const input = {name: 'Items', code: 'items', app_id: null, schema: {fields: {title: 'string'}}, public_methods: {}, fields: {}}
    const db = await a.dbs.create(account.id, input as never)
    expect((await b.dbs.get(account.id, 'items', {count: false}))?.schema).toEqual({fields: {title: 'string'}})
    await new Promise((r) => setImmediate(r))
    await a.dbs.update(account.id, db.id, {...input, schema: {fields: {title: 'string', qty: 'integer'}}} as never)
    await expect.poll(async () => (await b.dbs.get(account.id, 'items', {count: false}))?.schema, {timeout: 30_000, interval: 5})
      .toEqual({fields: {title: 'string', qty: 'integer'}})
  })

  it('the same code created at once through two instances: one wins, the others get the 422', async () => {
    const account = await a.accounts.createAccount('race')
    const user = await a.accounts.addUser({accountId: account.id, login: 'u'})
    const data = {name: 'P', code: 'same', content: 'x', kind: 'chat', scope: 'account', scopeId: null, fields: {}} as const
    const results = await Promise.allSettled(Array.from({length: 12}, (_, i) => (i % 2 ? a : b).prompts.create(account.id, user.id, data)))
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    for (const r of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
      expect(r.reason).toBeInstanceOf(SvcError)
      expect(r.reason).toMatchObject({status: 422, details: {code: ['has already been taken']}})
    }
    const logins = await Promise.allSettled(Array.from({length: 6}, (_, i) => (i % 2 ? a : b).accounts.addUser({accountId: account.id, login: 'twin'})))
    expect(logins.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    expect(logins.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.details)).toEqual(
      Array(5).fill({login: ['has already been taken']}))
  })

  it('a public db code claimed in two accounts at once through two instances: one wins', async () => {
    const [x, y] = [await a.accounts.createAccount('x'), await a.accounts.createAccount('y')]
    const input = (n: number) => ({name: `D${n}`, code: 'shared_public', app_id: null, schema: null, public_methods: {search: {}}, fields: {}}) as never
    const results = await Promise.allSettled(Array.from({length: 8}, (_, i) => (i % 2 ? a : b).dbs.create(i % 2 ? x.id : y.id, input(i))))
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.details)).toEqual(
      Array(7).fill({code: ['has already been taken']}))
  })

  it('concurrent read-modify-write updates of one record through two instances lose nothing', async () => {
    const account = await a.accounts.createAccount('counter')
    const db = await a.dbs.create(account.id, {name: 'C', code: 'c', app_id: null, schema: null, public_methods: {}, fields: {}} as never)
    const index = {idx_str_1: null, idx_str_2: null, idx_str_3: null, idx_int_1: null, idx_int_2: null, idx_time_1: null, idx_time_2: null}
    const record = await a.dbs.createRecord(account.id, db.id, {tableName: null, data: {n: 0}, index})
    await Promise.all(Array.from({length: 20}, (_, i) => (i % 2 ? a : b).dbs.updateRecord(account.id, db.id, record.id,
      (existing) => ({tableName: null, data: {n: (existing.data.n as number) + 1}, index}))))
    expect((await b.dbs.getRecord(account.id, db.id, record.id))?.data).toEqual({n: 20})
    expect((await a.dbs.getRecord(account.id, db.id, record.id))?.table_name).toBeNull()
  })

  it('search answers as SQLite: ASCII-only case folding, the trigram filter never drops a match', async () => {
    const account = await a.accounts.createAccount('search')
    const db = await a.dbs.create(account.id, {name: 'S', code: 's', app_id: null, schema: null, public_methods: {}, fields: {}} as never)
    const index = {idx_str_1: null, idx_str_2: null, idx_str_3: null, idx_int_1: null, idx_int_2: null, idx_time_1: null, idx_time_2: null}
    const ids: Record<string, number> = {}
    for (const [key, data] of Object.entries({
      upper: {title: 'HELLO World'}, accent: {title: 'Élan vital'}, number: {code: 12345}, bool: {flag: true}, nested: {obj: {title: 'hello'}},
    })) ids[key] = (await a.dbs.createRecord(account.id, db.id, {tableName: null, data, index})).id
    const q = async (fragment: string, literals: string[]) => (await b.dbs.query(account.id, db.id, {
      tableName: null, filters: [], sort: {kind: 'column', column: 'id'}, desc: false, limit: 100, offset: 0, q: {match: {parts: [fragment], anchored: false}, literals, fields: 'all'},
    })).map((r) => r.id)
    expect(await q('hello', ['hello'])).toEqual([ids.upper]) // ASCII letters either case; nested objects are not searched
    expect(await q('élan', ['élan'])).toEqual([]) // SQLite's LIKE does not fold É
    expect(await q('Élan', ['Élan'])).toEqual([ids.accent])
    expect(await q('234', ['234'])).toEqual([ids.number])
    const sorted = await b.dbs.query(account.id, db.id, {tableName: null, filters: [], sort: {kind: 'json', field: 'title'}, desc: false, limit: 100, offset: 0})
    // Missing first (by id), then text by code point: 'HELLO World' < 'Élan vital'.
    expect(sorted.map((r) => r.id)).toEqual([ids.number, ids.bool, ids.nested, ids.upper, ids.accent])
  })

  it('statements are prepared once per connection with custom plans; one whose table changed under it (another instance migrating) still answers', async () => {
    const {default: pgLib} = await import('pg')
    const pool = new pgLib.Pool({...connectionOptions(url), max: 1})
    try {
      const db = new PgDb(pool)
      await db.run('CREATE TABLE prepared_probe (a integer)')
      await db.run('INSERT INTO prepared_probe (a) VALUES (?)', [1])
      expect(await db.all('SELECT * FROM prepared_probe WHERE a = ?', [1])).toEqual([{a: 1}])
      const prepared = await db.all<{statement: string}>('SELECT statement FROM pg_prepared_statements')
      expect(prepared.map((p) => p.statement)).toContain('SELECT * FROM prepared_probe WHERE a = $1')
      // A text over PREPARED_TEXT_MAX (a search of many conditions) runs unnamed: no connection keeps it.
      const long = `SELECT a FROM prepared_probe WHERE ${'a = ? AND '.repeat(Math.ceil(PREPARED_TEXT_MAX / 10))}true`
      expect(await db.all(long, Array(Math.ceil(PREPARED_TEXT_MAX / 10)).fill(1))).toEqual([{a: 1}])
      expect((await db.all<{statement: string}>('SELECT statement FROM pg_prepared_statements')).some((p) => p.statement.startsWith('SELECT a FROM prepared_probe WHERE a = $1 AND'))).toBe(false)
      expect((await db.get('SHOW plan_cache_mode')).plan_cache_mode).toBe('force_custom_plan')
      // A URL's own startup options are kept beside it.
      expect(connectionOptions('postgres://svc@db.example/svc?options=-c%20statement_timeout%3D5000&sslmode=require')).toEqual({
        connectionString: 'postgres://svc@db.example/svc?sslmode=require', options: '-c statement_timeout=5000 -c plan_cache_mode=force_custom_plan',
      })
      // What a migration of another instance does to a table this connection has a statement on.
      const adminOf = async (database: string, statement: string) => {
        const other = new pgLib.Client({connectionString: database})
        await other.connect()
        await other.query(statement).finally(() => other.end())
      }
      await adminOf(url, 'ALTER TABLE prepared_probe ADD COLUMN b text')
      expect(await db.all('SELECT * FROM prepared_probe WHERE a = ?', [1])).toEqual([{a: 1, b: null}])
      await adminOf(url, 'ALTER TABLE prepared_probe ADD COLUMN c text')
      expect(await db.tx((q) => q.all('SELECT * FROM prepared_probe WHERE a = ?', [1]))).toEqual([{a: 1, b: null, c: null}])
      // Turned off for a pooler that keeps no prepared statements: the next new text runs unnamed.
      process.env.SVC_DATABASE_PREPARE = '0'
      try {
        await db.all('SELECT a FROM prepared_probe WHERE a > ?', [0])
        const after = await db.all<{statement: string}>('SELECT statement FROM pg_prepared_statements')
        expect(after.map((p) => p.statement)).not.toContain('SELECT a FROM prepared_probe WHERE a > $1')
      } finally {
        delete process.env.SVC_DATABASE_PREPARE
      }
    } finally {
      await endPool(pool)
    }
  })

  it('a database that cannot be reached is a 503 SvcError, not a crash', async () => {
    const u = new URL(url)
    u.port = '1' // nothing listens there
    const error = await openStoreAt({dataDir, databaseUrl: u.toString()}).then(() => null, (e: unknown) => e)
    expect(error).toBeInstanceOf(SvcError)
    expect(error).toMatchObject({status: 503, code: 'unavailable'})
    expect(String((error as Error).message)).not.toContain(u.toString())
  })

  it('a URL that is not PostgreSQL is a usage error', async () => {
    await expect(openStoreAt({dataDir, databaseUrl: 'mysql://x/y'})).rejects.toMatchObject({code: 'usage'})
  })
})
