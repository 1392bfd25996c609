// Purging a deleted db (the journal's retention: store.dbs.purgeDeleted) while the account's other
// db and another account's db are written and searched. On SQLite the purge ends with FTS5 merging
// the emptied trigram segments away; that step runs on a thread of its own with its own connection
// (src/store/sqlite/fts-merge.ts) while the server's writes wait for it without blocking the event
// loop (group-commit.ts holdWrites). Whatever the store: every write meanwhile is acknowledged and
// kept, every search answers exactly the db's own records, the purged db's records are gone.
import Database from 'better-sqlite3'
import {afterEach, expect, it} from 'vitest'
import {PURGE_SLICE} from '../../src/store/dbs/repo.js'
import {dataFile, openSqlite} from '../../src/store/sqlite/connection.js'
import {holdWrites, queuedWrite} from '../../src/store/sqlite/group-commit.js'
import {SqlitePort} from '../../src/store/sqlite/port.js'
import {pg, rawQuery} from '../helpers/pg.js'
import {describeBothTransports} from '../helpers/scenarios.js'
import {tempDir} from '../helpers/world.js'

/** More than two slices, and not a multiple of one. */
const MANY = PURGE_SLICE * 2 + 345

const records = (n: number, title: (i: number) => string) =>
  Array.from({length: n}, (_, i) => ({tableName: null, data: {title: title(i), note: 'dragon hoard'} as never, index: {}}))

describeBothTransports('purging a deleted db while other dbs are written and searched', undefined, (ctx) => {
  const titles = (r: {json: {title: string}[]}) => r.json.map((x) => x.title).sort()

  it('every write meanwhile is kept, every search answers its own db\'s records, the purged db\'s records leave the index', async () => {
    const {call, world} = ctx()
    const big = (await call('POST', '/svc/dbs.json', {body: {db: {name: 'Hoard', code: 'hoard'}}})).json
    const kept = (await call('POST', '/svc/dbs.json', {body: {db: {name: 'Kept', code: 'kept'}}})).json
    const theirs = (await call('POST', '/svc/dbs.json', {as: 'mallory', body: {db: {name: 'Hoard', code: 'hoard'}}})).json
    // The same words in every db: the index's candidates mix them, each search must keep its own.
    await world.store.dbs.createRecords(world.accounts.acme!, big.id, records(MANY, (i) => `Smaug gold ${i}`))
    await world.store.dbs.createRecords(world.accounts.acme!, kept.id, records(3, (i) => `Smaug kept ${i}`))
    await world.store.dbs.createRecords(world.accounts.other!, theirs.id, records(4, (i) => `Smaug theirs ${i}`))
    const indexRows = async () => pg ? 0 : Number((await rawQuery(world, 'SELECT count(*) AS n FROM db_records_fts_data'))[0].n)
    const before = await indexRows()
    expect((await call('DELETE', `/svc/dbs/${big.id}.json`)).status).toBe(204)

    let purged = false
    const purge = world.store.dbs.purgeDeleted().finally(() => (purged = true))
    const written: string[] = []
    do {
      const title = `Smaug written ${written.length}`
      const created = await call('POST', '/svc/dbs/kept/records.json', {body: {record: {data: {title, note: 'dragon hoard'}}}})
      expect(created.status).toBe(201)
      written.push(title)
      const found = await call('GET', '/svc/dbs/kept/search.json?q=smaug&limit=100')
      expect(found.status).toBe(200)
      expect(titles(found).every((t) => !t.startsWith('Smaug gold'))).toBe(true)
    } while (!purged)
    expect(await purge).toBe(1)

    const keptTitles = [...['Smaug kept 0', 'Smaug kept 1', 'Smaug kept 2'], ...written].sort()
    expect(titles(await call('GET', '/svc/dbs/kept/search.json?q=smaug&limit=100'))).toEqual(keptTitles)
    expect(titles(await call('GET', '/svc/dbs/kept/search.json?q=dragon&limit=100'))).toEqual(keptTitles)
    expect(titles(await call('GET', '/svc/dbs/kept/search.json?q=gold&limit=100'))).toEqual([])
    expect(titles(await call('GET', '/svc/dbs/hoard/search.json?q=smaug', {as: 'mallory'}))).toEqual(['Smaug theirs 0', 'Smaug theirs 1', 'Smaug theirs 2', 'Smaug theirs 3'])
    expect((await call('GET', `/svc/dbs/${big.id}/search.json?q=smaug`)).status).toBe(404)
    expect(Number((await rawQuery(world, 'SELECT count(*) AS n FROM db_records WHERE db_id = ?', [big.id]))[0].n)).toBe(0)
    if (!pg) {
      // Nothing of the purged records is left in the index: no match for their words, the emptied
      // segments merged away, FTS5's merges (held during the purge) back to their defaults.
      expect(await rawQuery(world, `SELECT rowid FROM db_records_fts WHERE db_records_fts MATCH '"gold"'`)).toEqual([])
      expect(await indexRows()).toBeLessThan(before)
      expect(await rawQuery(world, "SELECT k, v FROM db_records_fts_config WHERE k IN ('automerge', 'deletemerge') ORDER BY k"))
        .toEqual([{k: 'automerge', v: 4}, {k: 'deletemerge', v: 10}])
    }
  })
})

// Store-specific: how the server's SQLite connection waits for a write on another thread of its process.
const opened: {close(): void}[] = []
afterEach(() => opened.splice(0).forEach((s) => s.close()))

it.skipIf(pg)('while another connection of the process holds the write lock, the server\'s writes wait without blocking the event loop, then commit', async () => {
  const dir = tempDir()
  const db = openSqlite(dir)
  opened.push(db)
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)')
  const port = new SqlitePort(db)
  // Stands for the merge thread: a second connection that takes the write lock for a while. Without
  // the hold, the server's connection would wait for that lock in SQLite's busy handler, on this
  // thread, which the other connection (on this thread too) could never release: 10 s, then a 503.
  const other = new Database(dataFile(dir))
  opened.push(other)
  let turns = 0
  const ticking = setInterval(() => turns++, 1)
  let release!: () => void
  const held = holdWrites(db, async () => {
    other.exec('BEGIN IMMEDIATE')
    other.prepare('INSERT INTO t (v) VALUES (?)').run('other')
    await new Promise<void>((resolve) => (release = resolve))
    other.exec('COMMIT')
    return 'done'
  })
  const writes = [
    port.run('INSERT INTO t (v) VALUES (?)', ['run']),
    port.tx(function* (q) {
      return yield* q.run('INSERT INTO t (v) VALUES (?)', ['tx'])
    }),
    queuedWrite(db, () => db.prepare('INSERT INTO t (v) VALUES (?)').run('queued').changes),
    port.queuedRun('INSERT INTO t (v) VALUES (?)', ['queuedRun']),
  ]
  // The event loop turns while they wait; nothing of them is written yet.
  await expect.poll(() => turns, {timeout: 10_000}).toBeGreaterThan(5)
  expect(db.prepare('SELECT v FROM t').all()).toEqual([])
  release()
  expect(await held).toBe('done')
  expect(await Promise.all(writes)).toEqual([1, 1, 1, 1])
  clearInterval(ticking)
  const rows = (db.prepare('SELECT v FROM t ORDER BY id').all() as {v: string}[]).map((r) => r.v)
  expect(rows[0]).toBe('other')
  expect(rows.slice(1).sort()).toEqual(['queued', 'queuedRun', 'run', 'tx'])
})
