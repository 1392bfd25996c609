// Group commit (queuedWrite in src/store/sqlite/group-commit.ts): concurrent record writes share one transaction,
// each in its own savepoint. Proven on a real SQLite file: every acknowledged write is there, a write
// that throws takes nothing else down, and one that fails takes back only its own changes.
import Database from 'better-sqlite3'
import {afterEach, expect, it} from 'vitest'
import {openStore} from '../../src/store/index.js'
import {queuedWrite} from '../../src/store/sqlite/group-commit.js'
import {dataFile, openSqlite} from '../../src/store/sqlite/connection.js'
import type {Store} from '../../src/store/types.js'
import {tempDir} from '../helpers/world.js'
import {pg} from '../helpers/pg.js'

// Store-specific: SQLite group commit (PostgreSQL commits each write in its own transaction), skipped in the PostgreSQL half.

const opened: {close(): void}[] = []
afterEach(() => opened.splice(0).forEach((s) => s.close()))

async function world(): Promise<{dir: string; store: Store; accountId: number; dbId: number}> {
  const dir = tempDir()
  const store = openStore(dir)
  opened.push(store)
  const account = await store.accounts.createAccount('group')
  const db = await store.dbs.create(account.id, {name: 'G', code: 'g', app_id: null, schema: {fields: {n: 'integer'}}, public_methods: {}, fields: {}})
  return {dir, store, accountId: account.id, dbId: db.id}
}

const write = (n: number) => ({tableName: null, data: {n}, index: {}})

it.skipIf(pg)('concurrent creates, updates and deletes: each resolves with its own result after the commit', async () => {
  const {dir, store, accountId, dbId} = await world()
  const first = await store.dbs.createRecord(accountId, dbId, write(0))
  const results = await Promise.allSettled([
    ...Array.from({length: 40}, (_, i) => store.dbs.createRecord(accountId, dbId, write(i + 1))),
    store.dbs.updateRecord(accountId, dbId, first.id, () => write(100)),
    store.dbs.updateRecord(accountId, dbId, first.id, () => {
      throw new Error('refused by its builder')
    }),
    store.dbs.deleteRecord(accountId, dbId, 999_999),
  ])
  const created = results.slice(0, 40).map((r) => (r.status === 'fulfilled' ? r.value : null))
  expect(created.every((r) => r !== null)).toBe(true)
  expect(new Set(created.map((r) => r!.id)).size).toBe(40)
  expect(created.map((r) => r!.data.n)).toEqual(Array.from({length: 40}, (_, i) => i + 1))
  expect(results[40]).toMatchObject({status: 'fulfilled', value: {id: first.id, data: {n: 100}}})
  expect(results[41]).toMatchObject({status: 'rejected', reason: {message: 'refused by its builder'}})
  expect(results[42]).toEqual({status: 'fulfilled', value: false})
  // What another connection sees: everything acknowledged, committed.
  const db = new Database(dataFile(dir), {readonly: true})
  opened.push(db)
  expect(db.prepare('SELECT count(*) AS n FROM db_records').get()).toEqual({n: 41})
  expect(db.prepare('SELECT data FROM db_records WHERE id = ?').get(first.id)).toEqual({data: '{"n":100}'})
})

it.skipIf(pg)('a write that fails half-way takes back only its own changes; the rest of the group commits', async () => {
  const {dir, accountId, dbId} = await world()
  const sqlite = openSqlite(dir) // a connection of its own, with its own queue
  opened.push(sqlite)
  const insert = (n: number) => sqlite.prepare(
    "INSERT INTO db_records (account_id, db_id, table_name, data, created_at, updated_at) VALUES (?, ?, NULL, ?, 'now', 'now')",
  ).run(accountId, dbId, JSON.stringify({n}))
  const outcomes = await Promise.allSettled([
    queuedWrite(sqlite, () => insert(1)),
    queuedWrite(sqlite, () => {
      insert(2) // written, then taken back with its savepoint
      throw new Error('second write fails after its insert')
    }),
    queuedWrite(sqlite, () => insert(3)),
  ])
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
  const rows = sqlite.prepare('SELECT data FROM db_records ORDER BY id').all() as {data: string}[]
  expect(rows.map((r) => JSON.parse(r.data).n)).toEqual([1, 3])
})

it.skipIf(pg)('writes queued while a group commits go into the next group, in order', async () => {
  const {dir, store, accountId, dbId} = await world()
  const sqlite = openSqlite(dir)
  opened.push(sqlite)
  const order: number[] = []
  const all = Array.from({length: 600}, (_, i) => queuedWrite(sqlite, () => {
    order.push(i)
    return i
  }))
  expect(await Promise.all(all)).toEqual(Array.from({length: 600}, (_, i) => i))
  expect(order).toEqual(Array.from({length: 600}, (_, i) => i))
  expect(await store.dbs.createRecord(accountId, dbId, write(7))).toMatchObject({data: {n: 7}})
})
