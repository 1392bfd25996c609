// The plans behind the fast search paths (docs/dbs.md "Search"), read with EXPLAIN on the statements
// the store runs: a prefix wildcard filter on a string index column searches that column's index
// (both stores), and a `q` walk on PostgreSQL reads records in order and stops at a page of hits.
// The answers themselves are checked over HTTP by search-paths.test.ts.
import Database from 'better-sqlite3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildQuery, type QueryInput} from '../../src/core/dbs/query.js'
import {indexValues} from '../../src/core/dbs/records.js'
import {planSchema, tablePlan} from '../../src/core/dbs/schema.js'
import {openStore, openStoreAt, type Store} from '../../src/store/index.js'
import {numbered} from '../../src/store/pg/connection.js'
import {searchStatements, WALK_PROBE} from '../../src/store/pg/dbs-search.js'
import {dataFile} from '../../src/store/sqlite/connection.js'
import {buildSelect} from '../../src/store/sqlite/dbs-search.js'
import {createTestDatabase, pg} from '../helpers/pg.js'
import {tempDir} from '../helpers/world.js'

const schema = {fields: {name: 'string', email: 'string'}, indexed_fields: ['name', 'email']}
const table = tablePlan(planSchema(schema), null)
const SIZE = 20_000
const person = (i: number) => ({name: `p${i} ${i % 7 === 0 ? 'common' : 'other'}`, email: `user${i}@x.org`})
const spec = (input: QueryInput) => ({...buildQuery(input, table, true), tableName: null})

async function seed(store: Store) {
  const account = await store.accounts.createAccount('plans')
  const db = await store.dbs.create(account.id, {name: 'P', code: 'p', app_id: null, schema, public_methods: {}, fields: {}})
  for (let i = 0; i < SIZE; i += 5000) {
    const writes = Array.from({length: 5000}, (_, j) => person(i + j)).map((data) => ({tableName: null, data, index: indexValues(table, data)}))
    await store.dbs.createRecords(account.id, db.id, writes)
  }
  return {accountId: account.id, dbId: db.id}
}

describe.skipIf(pg)('SQLite: a prefix wildcard filter on a string index column', () => {
  let store: Store
  let raw: Database.Database
  let ids: {accountId: number; dbId: number}
  beforeAll(async () => {
    const dir = tempDir()
    store = openStore(dir)
    ids = await seed(store)
    raw = new Database(dataFile(dir), {readonly: true})
  })
  afterAll(() => {
    raw.close()
    store.close()
  })

  it('searches the column index by range, one range per case variant', () => {
    const narrow = spec({filters: {email: 'USER1234*'}})
    const {sql, params} = buildSelect(ids.accountId, ids.dbId, narrow, new Set(narrow.filters))
    const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as {detail: string}[]).map((r) => r.detail).join('\n')
    expect(plan).toMatch(/USING COVERING INDEX db_records_str_2 \(db_id=\? AND table_name=\? AND idx_str_2>\? AND idx_str_2<\?\)/)
    expect(plan).toMatch(/SEARCH r USING .*\browid=\?/)
  })

  it('a sort by an index column walks its index, up or down: no sort of the table (records without a value included)', async () => {
    for (const sort of ['name', '-name', 'email']) {
      const sorted = {...spec({sort}), limit: 20, offset: 40}
      const {sql, params} = buildSelect(ids.accountId, ids.dbId, sorted)
      const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as {detail: string}[]).map((r) => r.detail).join('\n')
      expect(plan, sort).toMatch(/USING INDEX db_records_str_[12] \(db_id=\? AND table_name=\?\)/)
      expect(plan, sort).not.toMatch(/TEMP B-TREE/)
    }
  })

  it('and finds the same records', async () => {
    const found = (await store.dbs.query(ids.accountId, ids.dbId, spec({filters: {email: 'USER1234*'}, limit: '100'}))).map((r) => r.data.email)
    expect(found).toEqual(['user12349@x.org', 'user12348@x.org', 'user12347@x.org', 'user12346@x.org', 'user12345@x.org',
      'user12344@x.org', 'user12343@x.org', 'user12342@x.org', 'user12341@x.org', 'user12340@x.org', 'user1234@x.org'])
  })
})

/** Every node of an EXPLAIN (FORMAT JSON) plan. */
function nodes(plan: any): any[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)]
}

describe.runIf(pg)('PostgreSQL: the plans of prefix filters and q walks', () => {
  let store: Store
  let drop: () => Promise<void>
  let client: import('pg').Client
  let ids: {accountId: number; dbId: number}
  const explain = async (statement: {sql: string; params: unknown[]}, analyze = false) =>
    (await client.query(`EXPLAIN (FORMAT JSON${analyze ? ', ANALYZE' : ''}) ${numbered(statement.sql)}`, statement.params)).rows[0]['QUERY PLAN'][0].Plan
  beforeAll(async () => {
    const db = await createTestDatabase()
    drop = db.drop
    store = await openStoreAt({dataDir: tempDir(), databaseUrl: db.url})
    ids = await seed(store)
    // Another db's records, newer than all of these: a walk must not read through them.
    const other = await store.dbs.create(ids.accountId, {name: 'O', code: 'o', app_id: null, schema, public_methods: {}, fields: {}})
    const writes = Array.from({length: 3000}, (_, i) => person(i)).map((data) => ({tableName: null, data, index: indexValues(table, data)}))
    await store.dbs.createRecords(ids.accountId, other.id, writes)
    const {default: pgLib} = await import('pg')
    client = new pgLib.Client({connectionString: db.url})
    await client.connect()
    await client.query('VACUUM ANALYZE db_records')
  })
  afterAll(async () => {
    await client?.end()
    await store?.close()
    await drop?.()
  })

  it('a prefix wildcard filter reads the ranges of the column index', async () => {
    const statements = searchStatements(ids.accountId, ids.dbId, spec({filters: {email: 'USER1234*'}}))!
    expect(statements.walk).toBeNull()
    const plan = nodes(await explain(statements.full))
    expect(plan.map((n) => n['Index Name'])).toContain('db_records_str_2')
    expect(plan.some((n) => n['Node Type'] === 'Seq Scan')).toBe(false)
  })

  it('a common q fragment: the walk reads the newest records by index and stops at a page of hits', async () => {
    const statements = searchStatements(ids.accountId, ids.dbId, spec({q: 'common', search_in: 'name'}))!
    const plan = nodes(await explain(statements.walk!(WALK_PROBE), true))
    expect(plan[0]['Actual Rows']).toBe(20)
    const scan = plan.find((n) => n['Node Type'] === 'Index Scan')
    expect(scan['Scan Direction']).toBe('Backward')
    // The db's own index, not the primary key filtered by db (which reads the other db's newer records first).
    expect(scan['Index Name']).toBe('db_records_table')
    expect(plan.some((n) => n['Node Type'] === 'Sort')).toBe(false)
    // One hit in seven records: about 140 rows read, far fewer than the window allows.
    expect(scan['Actual Rows']).toBeLessThan(WALK_PROBE / 2)
  })

  it('the walk and the full query give the same page', async () => {
    for (const input of [{q: 'common'}, {q: 'COMMON', sort: 'name'}, {q: 'common', sort: '-name', limit: '30', offset: '10'}, {q: 'p1*mon'}]) {
      const statements = searchStatements(ids.accountId, ids.dbId, spec({search_in: 'name', ...input}))!
      const full = (await client.query(numbered(statements.full.sql), statements.full.params)).rows.map((r) => r.id)
      const walked = (await client.query(numbered(statements.walk!(WALK_PROBE).sql), statements.walk!(WALK_PROBE).params)).rows.map((r) => r.id)
      expect(walked.length, JSON.stringify(input)).toBeGreaterThanOrEqual(full.length)
      expect(walked.slice(Number(input.offset ?? 0)), JSON.stringify(input)).toEqual(full)
      expect((await store.dbs.query(ids.accountId, ids.dbId, spec({search_in: 'name', ...input}))).map((r) => String(r.id))).toEqual(full.map(String))
    }
  })
})
