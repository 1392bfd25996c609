// The trigram full-text index written in batches (src/store/sqlite/fts-indexer.ts): record writes
// queue the record's id, an indexing run moves queued records into the index. A search must give
// the same answer whether a record is queued, indexed, updated since it was indexed, or deleted.
// Proven on real SQLite files, reading the index tables through a second connection.
import Database from 'better-sqlite3'
import {afterEach, expect, it} from 'vitest'
import {buildQuery} from '../../src/core/dbs/query.js'
import {planSchema, tablePlan} from '../../src/core/dbs/schema.js'
import {FTS_BATCH} from '../../src/store/sqlite/fts-indexer.js'
import {openStore} from '../../src/store/index.js'
import {MIGRATIONS} from '../../src/store/sqlite/migrations/index.js'
import {dataFile} from '../../src/store/sqlite/connection.js'
import type {Store} from '../../src/store/types.js'
import {tempDir} from '../helpers/world.js'
import {pg} from '../helpers/pg.js'

// Store-specific: SQLite's batched FTS5 index, skipped in the PostgreSQL half (pg_trgm needs no queue).

const opened: {close(): void}[] = []
afterEach(() => opened.splice(0).forEach((s) => s.close()))

const schema = {fields: {name: 'string', city: 'string'}, indexed_fields: ['name']}
const table = tablePlan(planSchema(schema), null)

async function world(dir = tempDir()) {
  const store = openStore(dir)
  opened.push(store)
  const account = await store.accounts.createAccount('fts')
  const db = await store.dbs.create(account.id, {name: 'W', code: 'w', app_id: null, schema, public_methods: {}, fields: {}})
  const raw = new Database(dataFile(dir), {readonly: true})
  opened.push(raw)
  return {dir, store, accountId: account.id, dbId: db.id, raw}
}

const write = (name: string, city = 'Oslo') => ({tableName: null, data: {name, city}, index: {idx_str_1: name}})
const queued = (raw: Database.Database) => (raw.prepare('SELECT id FROM db_records_fts_pending ORDER BY id').all() as {id: number}[]).map((r) => r.id)
const indexed = (raw: Database.Database, q: string) =>
  (raw.prepare('SELECT rowid AS id FROM db_records_fts WHERE db_records_fts MATCH ? ORDER BY rowid').all(`"${q}"`) as {id: number}[]).map((r) => r.id)

/** Ids matching `q` in `name`, newest first: through the trigram index and through a plain scan, which must agree. */
async function search(store: Store, accountId: number, dbId: number, q: string): Promise<number[]> {
  const spec = (useFts: boolean) => ({...buildQuery({q, search_in: 'name', limit: '100'}, table, true), tableName: null, useTextIndex: useFts})
  const [withIndex, scan] = await Promise.all([store.dbs.query(accountId, dbId, spec(true)), store.dbs.query(accountId, dbId, spec(false))])
  expect(withIndex.map((r) => r.id), `q=${q}: the index and a scan disagree`).toEqual(scan.map((r) => r.id))
  return withIndex.map((r) => r.id)
}

it.skipIf(pg)('a new record is queued, not indexed, and found at once', async () => {
  const {store, accountId, dbId, raw} = await world()
  const rec = await store.dbs.createRecord(accountId, dbId, write('Gandalf'))
  expect(queued(raw)).toEqual([rec.id])
  expect(indexed(raw, 'ndal')).toEqual([])
  expect(await search(store, accountId, dbId, 'ndal')).toEqual([rec.id])
})

it.skipIf(pg)(`every ${FTS_BATCH} writes an indexing run empties the queue into the index; searches agree throughout`, async () => {
  const {store, accountId, dbId, raw} = await world()
  const ids: number[] = []
  const total = Math.ceil((FTS_BATCH + 10) / 10) * 10
  for (let i = 0; i < total; i += 10) {
    // ten at a time: concurrent writes share a group commit
    const created = await Promise.all(Array.from({length: 10}, (_, j) => store.dbs.createRecord(accountId, dbId, write(`name${String(i + j).padStart(4, '0')}`))))
    ids.push(...created.map((r) => r.id))
  }
  await store.dbs.createRecord(accountId, dbId, write('after'))
  expect(queued(raw).length).toBeLessThan(FTS_BATCH)
  const inIndex = indexed(raw, 'name')
  expect(inIndex.length).toBeGreaterThanOrEqual(FTS_BATCH)
  expect(new Set([...inIndex, ...queued(raw)]).size).toBe(total + 1) // every record is indexed or queued, never both
  expect(inIndex.filter((id) => queued(raw).includes(id))).toEqual([])
  expect(await search(store, accountId, dbId, 'name0007')).toEqual([ids[7]])
  expect(await search(store, accountId, dbId, `name0${FTS_BATCH + 5}`)).toEqual([ids[FTS_BATCH + 5]])
  expect(await search(store, accountId, dbId, 'name02')).toEqual(ids.slice(200, total).reverse())
})

it.skipIf(pg)('writers in several processes share the rule: the record whose id is a multiple of the batch indexes the queue', async () => {
  const {dir, store, accountId, dbId, raw} = await world()
  const other = openStore(dir) // as a CLI process would: its own connection, one write at a time
  opened.push(other)
  for (let i = 0; i < FTS_BATCH + 20; i++) {
    const created = await (i % 2 ? other : store).dbs.createRecord(accountId, dbId, write(`w${i}`))
    if (created.id % FTS_BATCH === 0) expect(queued(raw)).toEqual([])
  }
  expect(queued(raw).length).toBeLessThan(FTS_BATCH)
  expect(await search(store, accountId, dbId, 'w10')).toHaveLength(11) // w10, w100..w109
})

it.skipIf(pg)(`every ${FTS_BATCH} updates through a connection index the queue, so updates alone do not grow it`, async () => {
  const {store, accountId, dbId, raw} = await world()
  await store.dbs.createRecords(accountId, dbId, Array.from({length: FTS_BATCH + 40}, (_, i) => write(`before${i}`)))
  expect(queued(raw)).toEqual([])
  const ids = (raw.prepare('SELECT id FROM db_records ORDER BY id').all() as {id: number}[]).map((r) => r.id)
  for (const id of ids) await store.dbs.updateRecord(accountId, dbId, id, () => write(`upd${id}q`))
  expect(queued(raw)).toEqual(ids.slice(FTS_BATCH)) // the 256th update indexed the 256 before it
  expect(await search(store, accountId, dbId, 'before')).toEqual([])
  expect(await search(store, accountId, dbId, `upd${ids[0]}q`)).toEqual([ids[0]])
  expect(await search(store, accountId, dbId, `upd${ids.at(-1)}q`)).toEqual([ids.at(-1)])
})

it.skipIf(pg)('an indexed record that is updated is found by its new text only, before and after it is indexed again', async () => {
  const {store, accountId, dbId, raw} = await world()
  const rec = await store.dbs.createRecord(accountId, dbId, write('Frodo Baggins'))
  await store.dbs.createRecords(accountId, dbId, [write('Samwise Gamgee')]) // a batch write indexes every queued record
  expect(queued(raw)).toEqual([])
  expect(indexed(raw, 'aggi')).toEqual([rec.id])

  await store.dbs.updateRecord(accountId, dbId, rec.id, () => write('Bilbo Baggins'))
  expect(queued(raw)).toEqual([rec.id])
  expect(indexed(raw, 'aggi')).toEqual([]) // the old text left the index with the update
  expect(await search(store, accountId, dbId, 'bilbo')).toEqual([rec.id])
  expect(await search(store, accountId, dbId, 'frodo')).toEqual([])

  await store.dbs.createRecords(accountId, dbId, [])
  expect(queued(raw)).toEqual([])
  expect(indexed(raw, 'ilbo')).toEqual([rec.id])
  expect(await search(store, accountId, dbId, 'bilbo')).toEqual([rec.id])
  expect(await search(store, accountId, dbId, 'frodo')).toEqual([])
})

it.skipIf(pg)('a deleted record leaves the queue and the index; deleting a db takes its records out of both', async () => {
  const {store, accountId, dbId, raw} = await world()
  const kept = await store.dbs.createRecord(accountId, dbId, write('Aragorn'))
  await store.dbs.createRecords(accountId, dbId, [write('Arwen')])
  const fresh = await store.dbs.createRecord(accountId, dbId, write('Arathorn'))
  expect(queued(raw)).toEqual([fresh.id])
  expect(await store.dbs.deleteRecord(accountId, dbId, fresh.id)).toBe(true)
  expect(await store.dbs.deleteRecord(accountId, dbId, kept.id)).toBe(true)
  expect(queued(raw)).toEqual([])
  expect(indexed(raw, 'rag')).toEqual([])
  expect(await search(store, accountId, dbId, 'ar')).toHaveLength(1)
  expect(await store.dbs.delete(accountId, dbId)).toBe(true)
  await store.dbs.purgeDeleted() // a deleted db's records stay for a restore until retention (docs/history.md)
  expect(raw.prepare('SELECT count(*) AS n FROM db_records_fts_pending').get()).toEqual({n: 0})
  expect(indexed(raw, 'rwe')).toEqual([])
})

it.skipIf(pg)('once writes stop, the last queued records are indexed within a few seconds', async () => {
  const {store, accountId, dbId, raw} = await world()
  const rec = await store.dbs.createRecord(accountId, dbId, write('Legolas'))
  expect(queued(raw)).toEqual([rec.id])
  await expect.poll(() => queued(raw), {timeout: 30_000, interval: 100}).toEqual([])
  expect(indexed(raw, 'egol')).toEqual([rec.id])
  // and again after the next pause: the same timer is armed again by the next write
  const next = await store.dbs.createRecord(accountId, dbId, write('Gimli'))
  expect(queued(raw)).toEqual([next.id])
  await expect.poll(() => queued(raw), {timeout: 30_000, interval: 100}).toEqual([])
  expect(indexed(raw, 'giml')).toEqual([next.id])
})

it.skipIf(pg)('a data file from before batched indexing keeps its index, and its new writes are queued', async () => {
  const dir = tempDir()
  // The file as the previous version left it: migrations up to 50, a record indexed by its trigger.
  const old = new Database(dataFile(dir))
  old.exec('CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)')
  for (const m of MIGRATIONS.filter((x) => x.id <= 50)) {
    old.exec(m.up)
    old.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.id, m.name, new Date().toISOString())
  }
  const t = new Date().toISOString()
  const accountId = Number(old.prepare('INSERT INTO accounts (name, created_at) VALUES (?, ?)').run('old', t).lastInsertRowid)
  const dbId = Number(old.prepare(`INSERT INTO dbs (account_id, name, code, schema, created_at, updated_at) VALUES (?, 'W', 'w', ?, ?, ?)`)
    .run(accountId, JSON.stringify(schema), t, t).lastInsertRowid)
  const oldId = Number(old.prepare(`INSERT INTO db_records (account_id, db_id, data, idx_str_1, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`)
    .run(accountId, dbId, JSON.stringify({name: 'Boromir', city: 'Minas'}), 'Boromir', t, t).lastInsertRowid)
  old.close()

  const store = openStore(dir)
  opened.push(store)
  const raw = new Database(dataFile(dir), {readonly: true})
  opened.push(raw)
  expect(indexed(raw, 'romi')).toEqual([oldId])
  const rec = await store.dbs.createRecord(accountId, dbId, write('Faramir'))
  expect(queued(raw)).toEqual([rec.id])
  expect(await search(store, accountId, dbId, 'mir')).toEqual([rec.id, oldId])
})
