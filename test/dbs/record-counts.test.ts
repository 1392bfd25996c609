// Record counts on SQLite are kept per db and table by triggers (migration 54): a db list, a db read
// and usage read one row each instead of counting the records on the server's thread. A data file
// from before the migration gets its counts from the records it holds. (Both drivers' counts through
// every write are checked by test/store/conformance.ts.)
import Database from 'better-sqlite3'
import {afterEach, expect, it} from 'vitest'
import {openStore} from '../../src/store/index.js'
import {dataFile} from '../../src/store/sqlite/connection.js'
import {MIGRATIONS} from '../../src/store/sqlite/migrations/index.js'
import type {Store} from '../../src/store/types.js'
import {pg} from '../helpers/pg.js'
import {tempDir} from '../helpers/world.js'

const opened: {close(): unknown}[] = []
afterEach(() => {
  for (const o of opened.splice(0)) o.close()
})

it.skipIf(pg)('a data file from before kept counts gets them from its records, and every write keeps them', async () => {
  const dir = tempDir()
  const old = new Database(dataFile(dir))
  old.exec('CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)')
  for (const m of MIGRATIONS.filter((x) => x.id < 54)) {
    old.exec(m.up)
    old.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.id, m.name, new Date().toISOString())
  }
  const t = new Date().toISOString()
  const accountId = Number(old.prepare('INSERT INTO accounts (name, created_at) VALUES (?, ?)').run('old', t).lastInsertRowid)
  const db = (code: string, schema: unknown) => Number(old.prepare(`INSERT INTO dbs (account_id, name, code, schema, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`)
    .run(accountId, code, code, JSON.stringify(schema), t, t).lastInsertRowid)
  const multi = db('multi', {tables: {a: {fields: {x: 'integer'}}, b: {fields: {x: 'integer'}}}})
  const single = db('single', {fields: {x: 'integer'}})
  const insert = old.prepare('INSERT INTO db_records (account_id, db_id, table_name, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
  for (let i = 0; i < 5; i++) insert.run(accountId, multi, 'a', JSON.stringify({x: i}), t, t)
  for (let i = 0; i < 2; i++) insert.run(accountId, multi, 'b', JSON.stringify({x: i}), t, t)
  for (let i = 0; i < 3; i++) insert.run(accountId, single, null, JSON.stringify({x: i}), t, t)
  old.close()

  const store: Store = openStore(dir)
  opened.push(store)
  const counts = async () => ({
    list: (await store.dbs.list(accountId)).map((d) => d.records_count),
    multi: (await store.dbs.usage(accountId, multi, new Map([['a', []], ['b', []]]))).map((u) => [u.table_name, u.records_count]),
    single: (await store.dbs.get(accountId, 'single'))!.records_count,
  })
  expect(await counts()).toEqual({list: [7, 3], multi: [['a', 5], ['b', 2]], single: 3})

  const rec = (tableName: string | null) => ({tableName, data: {x: 9} as never, index: {}})
  const made = await store.dbs.createRecord(accountId, multi, rec('b'))
  await store.dbs.createRecords(accountId, single, [rec(null), rec(null)])
  expect(await store.dbs.deleteRecord(accountId, multi, made.id)).toBe(true)
  await store.dbs.createRecord(accountId, single, rec(null), 6) // a public create checks the count against its limit
  await expect(store.dbs.createRecord(accountId, single, rec(null), 6)).rejects.toMatchObject({status: 403})
  expect(await counts()).toEqual({list: [7, 6], multi: [['a', 5], ['b', 2]], single: 6})

  // A deleted db takes its counts with it (once purged: its records are kept for a restore until retention).
  await store.dbs.delete(accountId, multi)
  await store.dbs.purgeDeleted()
  const raw = new Database(dataFile(dir), {readonly: true})
  opened.push(raw)
  expect(raw.prepare('SELECT db_id, table_key, n FROM db_record_counts ORDER BY db_id').all()).toEqual([{db_id: single, table_key: '', n: 6}])
})
