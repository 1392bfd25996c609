// A schema change that reindexes. One transaction rewriting the index columns of a 300,000-record db
// held SQLite's (the server's) thread 12.4 s: every other request waited. Now the db is marked, its
// records are rewritten REINDEX_SLICE per transaction with turns of the event loop between (on
// SQLite on a thread of their own: sqlite/reindex-thread.ts), its queries read the records' data
// until the mark goes, and a server finishes a reindex a stopped one left. Both stores, both transports.
import Database from 'better-sqlite3'
import {expect, it} from 'vitest'
import {REINDEX_SLICE} from '../../src/store/dbs/repo.js'
import {dataFile} from '../../src/store/sqlite/connection.js'
import {svcServe} from '../helpers/cli.js'
import {pg, rawQuery} from '../helpers/pg.js'
import {describeBothTransports} from '../helpers/scenarios.js'

/** Enough slices that requests land between them, and not a multiple of one. */
const MANY = REINDEX_SLICE * 20 + 123
const FIELDS = {name: 'string', n: 'integer'}

interface Row {id: number; name: string; n: number}

describeBothTransports('a schema change reindexes in slices', undefined, (ctx) => {
  const marked = async (dbId: number) => (await rawQuery(ctx().world, 'SELECT db_id FROM db_reindexes WHERE db_id = ?', [dbId])).length > 0

  /** A db of MANY records, `n` = i % 7, without indexes; its records as the test knows them. */
  async function seed(code: string): Promise<{dbId: number; rows: Map<number, Row>}> {
    const {call, world} = ctx()
    const db = (await call('POST', '/svc/dbs.json', {body: {db: {name: code, code, schema: {fields: FIELDS}}}})).json
    const records = Array.from({length: MANY}, (_, i) => ({tableName: null, data: {name: `r${i}`, n: i % 7} as never, index: {}}))
    await world.store.dbs.createRecords(world.accounts.acme!, db.id, records)
    const stored = await rawQuery(world, 'SELECT id FROM db_records WHERE db_id = ? ORDER BY id', [db.id])
    const rows = new Map<number, Row>(stored.map((r, i) => [Number(r.id), {id: Number(r.id), name: `r${i}`, n: i % 7}]))
    expect(rows.size).toBe(MANY)
    return {dbId: db.id, rows}
  }

  /** The answers the spec fixes, from what the test knows, against the server's: the `which`th of four. */
  async function checkOne(dbId: number, rows: Map<number, Row>, which: number, sample: number): Promise<void> {
    const all = [...rows.values()]
    const ids = async (qs: string) => {
      const r = await ctx().call('GET', `/svc/dbs/${dbId}/search.json?${qs}`)
      expect(r.status, r.text).toBe(200)
      return r.json.map((x: {id: number}) => x.id)
    }
    switch (which % 4) {
      case 0: return void expect(await ids('filter[n]=3&limit=100')).toEqual(all.filter((r) => r.n === 3).sort((a, b) => b.id - a.id).slice(0, 100).map((r) => r.id))
      case 1: return void expect(await ids('sort=n&limit=5')).toEqual([...all].sort((a, b) => a.n - b.n || a.id - b.id).slice(0, 5).map((r) => r.id))
      case 2: return void expect(await ids('sort=-name&limit=5'))
        .toEqual([...all].sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : b.id - a.id)).slice(0, 5).map((r) => r.id))
      default: return void expect(await ids(`filter[name]=r${sample}`)).toEqual(all.filter((r) => r.name === `r${sample}`).map((r) => r.id).sort((a, b) => b - a))
    }
  }
  async function check(dbId: number, rows: Map<number, Row>, sample: number): Promise<void> {
    for (let which = 0; which < 4; which++) await checkOne(dbId, rows, which, sample)
  }

  it('reads, writes and searches go on during the reindex, every answer right; the index answers after', async () => {
    const {call} = ctx()
    const {dbId, rows} = await seed('big')
    const ids = [...rows.keys()]
    let answered = false
    const patched = call('PATCH', `/svc/dbs/${dbId}.json`, {body: {db: {schema: {fields: FIELDS, indexed_fields: ['n', 'name']}}}})
      .finally(() => (answered = true))
    let answeredDuringReindex = 0
    for (let k = 0; !answered; k++) {
      // Records created, others updated (moved to n = 3), every answer checked, one request at a time.
      if (k % 6 === 0) {
        const created = await call('POST', `/svc/dbs/${dbId}/records.json`, {body: {record: {data: {name: `new${k}`, n: k % 7}}}})
        expect(created.status, created.text).toBe(201)
        rows.set(created.json.id, {id: created.json.id, name: `new${k}`, n: k % 7})
      } else if (k % 6 === 1) {
        const id = ids[(k * 997) % ids.length]!
        const updated = await call('PATCH', `/svc/dbs/${dbId}/records/${id}.json`, {body: {record: {data: {n: 3}}}})
        expect(updated.status, updated.text).toBe(200)
        rows.get(id)!.n = 3
      } else await checkOne(dbId, rows, k % 6 - 2, k)
      if (!answered && await marked(dbId)) answeredDuringReindex++
    }
    const patch = await patched
    expect(patch.status, patch.text).toBe(200)
    expect(patch.json.schema.indexed_fields).toEqual(['n', 'name'])
    // Requests were answered while the reindex ran (on one transaction, none could be on SQLite).
    expect(answeredDuringReindex).toBeGreaterThan(0)
    expect(await marked(dbId)).toBe(false)
    // Every record, written before, during or after, is found through the new index columns.
    await check(dbId, rows, 77)
    const late = await call('POST', `/svc/dbs/${dbId}/records.json`, {body: {record: {data: {name: 'late', n: 3}}}})
    rows.set(late.json.id, {id: late.json.id, name: 'late', n: 3})
    await check(dbId, rows, 5)
  })

  it('a second schema change during a reindex: both answer, the columns hold the last plan', async () => {
    const {call, world} = ctx()
    const {dbId, rows} = await seed('twice')
    let firstAnswered = false
    const first = call('PATCH', `/svc/dbs/${dbId}.json`, {body: {db: {schema: {fields: FIELDS, indexed_fields: ['n']}}}})
      .finally(() => (firstAnswered = true))
    // The second is sent once the first is saved: while its slices run (or, on a fast machine, after them).
    while (!firstAnswered && !(await marked(dbId))) await new Promise((r) => setTimeout(r, 2))
    const second = await call('PATCH', `/svc/dbs/${dbId}.json`, {body: {db: {schema: {fields: FIELDS, indexed_fields: ['name']}}}})
    expect(second.status, second.text).toBe(200)
    expect((await first).status).toBe(200)
    expect(await marked(dbId)).toBe(false)
    expect((await call('GET', `/svc/dbs/${dbId}.json`)).json.schema.indexed_fields).toEqual(['name'])
    await check(dbId, rows, 99)
    // name took the first string column; the number column the first plan filled is empty again.
    const columns = await rawQuery(world, 'SELECT count(*) AS n FROM db_records WHERE db_id = ? AND (idx_int_1 IS NOT NULL OR idx_str_1 IS NULL)', [dbId])
    expect(Number(columns[0].n)).toBe(0)
  })

  it('a db left marked answers from its data; a server finishes the reindex when it starts', async () => {
    const {call, world} = ctx()
    const {dbId, rows} = await seed('half')
    // What a server stopped in the middle of a reindex leaves: the new schema, the mark, and records
    // whose columns hold another plan's values (here: -1 where the new plan puts n).
    const schema = {fields: FIELDS, indexed_fields: ['n']}
    await rawQuery(world, 'UPDATE dbs SET schema = ? WHERE id = ?', [JSON.stringify(schema), dbId])
    await rawQuery(world, 'UPDATE db_records SET idx_int_1 = -1 WHERE db_id = ?', [dbId])
    await rawQuery(world, "INSERT INTO db_reindexes (db_id, table_key, after_id) VALUES (?, '', 0)", [dbId])
    // Another server changed the db: the cached definition here is trusted until the epoch moves, which a write through this server does.
    await call('POST', '/svc/dbs.json', {body: {db: {name: 'Touch', code: 'touch'}}})
    await check(dbId, rows, 12)

    const server = await svcServe(world.dataDir, world.databaseUrl ? ['--database-url', world.databaseUrl] : [])
    try {
      while (await marked(dbId)) await new Promise((r) => setTimeout(r, 50))
    } finally {
      await server.stop()
    }
    await call('POST', '/svc/dbs.json', {body: {db: {name: 'Touch again', code: 'touch2'}}})
    await check(dbId, rows, 13)
    // No record kept the other plan's value.
    expect(Number((await rawQuery(world, 'SELECT count(*) AS n FROM db_records WHERE db_id = ? AND idx_int_1 = -1', [dbId]))[0].n)).toBe(0)
  })

  it('two dbs reindexed at once (on SQLite by one shared thread): both answer, each db indexed by its own plan', async () => {
    const {call} = ctx()
    const one = await seed('pair_one')
    const two = await seed('pair_two')
    const [a, b] = await Promise.all([
      call('PATCH', `/svc/dbs/${one.dbId}.json`, {body: {db: {schema: {fields: FIELDS, indexed_fields: ['n']}}}}),
      call('PATCH', `/svc/dbs/${two.dbId}.json`, {body: {db: {schema: {fields: FIELDS, indexed_fields: ['name', 'n']}}}}),
    ])
    expect([a.status, b.status], `${a.text} ${b.text}`).toEqual([200, 200])
    expect(await marked(one.dbId)).toBe(false)
    expect(await marked(two.dbId)).toBe(false)
    await check(one.dbId, one.rows, 41)
    await check(two.dbId, two.rows, 42)
    const unfilled = async (dbId: number, condition: string) =>
      Number((await rawQuery(ctx().world, `SELECT count(*) AS n FROM db_records WHERE db_id = ? AND (${condition})`, [dbId]))[0].n)
    expect(await unfilled(one.dbId, 'idx_int_1 IS NULL OR idx_str_1 IS NOT NULL')).toBe(0)
    expect(await unfilled(two.dbId, 'idx_int_1 IS NULL OR idx_str_1 IS NULL')).toBe(0)
  })

  /** What a schema change leaves before its first slice (or a server stopped in one): the new schema and the mark. */
  async function markReindex(dbId: number, indexed: string[]): Promise<void> {
    const {call, world} = ctx()
    await rawQuery(world, 'UPDATE dbs SET schema = ? WHERE id = ?', [JSON.stringify({fields: FIELDS, indexed_fields: indexed}), dbId])
    await rawQuery(world, "INSERT INTO db_reindexes (db_id, table_key, after_id) VALUES (?, '', 0)", [dbId])
    // Another connection changed the db: the cached definition here is trusted until the epoch moves, which a write through this server does.
    await call('POST', '/svc/dbs.json', {body: {db: {name: `Touch ${dbId}`, code: `touch_${dbId}`}}})
  }

  it.skipIf(pg)('SQLite: the slices run off the server\'s thread: while another connection holds the write lock, the reindex waits and the server answers', async () => {
    const {call, world} = ctx()
    const {dbId, rows} = await seed('apart')
    await markReindex(dbId, ['n', 'name'])
    // Another connection takes the file's write lock, so no slice can be written until it commits. A
    // slice on the server's thread would wait for the lock there (SQLite's busy handler sleeps on the
    // calling thread): nothing else would run for 10 s, then the slice would fail (SQLITE_BUSY).
    const other = new Database(dataFile(world.dataDir))
    other.pragma('busy_timeout = 10000')
    other.exec('BEGIN IMMEDIATE')
    let settled = false
    let turns = 0
    const ticking = setInterval(() => turns++, 1)
    let finishing: Promise<number> | undefined
    try {
      finishing = world.store.dbs.finishReindexes().finally(() => (settled = true))
      // The event loop turns and the server answers, right (from the records' data), while the reindex waits.
      await expect.poll(() => turns, {timeout: 30_000}).toBeGreaterThan(20)
      await check(dbId, rows, 31)
      expect(settled).toBe(false)
      expect(await rawQuery(world, 'SELECT after_id FROM db_reindexes WHERE db_id = ?', [dbId])).toEqual([{after_id: 0}])
    } finally {
      other.exec('COMMIT')
      other.close()
      clearInterval(ticking)
    }
    // The lock released, the reindex goes on to its end; the queries use the new index columns.
    expect(await finishing).toBe(1)
    expect(await marked(dbId)).toBe(false)
    await call('POST', '/svc/dbs.json', {body: {db: {name: 'Touch after', code: 'touch_after'}}})
    await check(dbId, rows, 32)
    expect(Number((await rawQuery(world, 'SELECT count(*) AS n FROM db_records WHERE db_id = ? AND (idx_int_1 IS NULL OR idx_str_1 IS NULL)', [dbId]))[0].n)).toBe(0)
  })
})
