// Reads that grow with the data (deep pages, scans of unindexed fields, searches, exports over every
// table, public lists) run on reader threads while a server has them started (SQLite: one read-only
// connection per worker thread; PostgreSQL: nothing to start). The answers are the same records in
// the same order as on the server's own connection; one account's pile of long reads is refused
// past LANE_MAX waiting, and another account's read still answers.
import {expect, it} from 'vitest'
import {LANE_MAX} from '../../src/store/sqlite/reader-pool.js'
import {pg} from '../helpers/pg.js'
import {describeBothTransports} from '../helpers/scenarios.js'

const MANY = 3000

describeBothTransports('long reads off the server\'s thread', undefined, (ctx, transport) => {
  let dbId = 0
  let multiId = 0

  it('seeds', async () => {
    const {call, world} = ctx()
    const db = (await call('POST', '/svc/dbs.json', {body: {db: {
      name: 'Scan', code: 'scan', schema: {fields: {name: 'string', n: 'integer', note: 'string'}, indexed_fields: ['n']},
      public_methods: {list: true, search: {allowed_params: ['q', 'limit', 'offset', 'sort']}},
    }}})).json
    dbId = db.id
    const records = Array.from({length: MANY}, (_, i) => ({tableName: null, data: {name: `p${(i * 7919) % MANY}`, n: i % 13, note: i % 5 ? `plain ${i}` : `rare ${i}`} as never,
      index: {idx_int_1: i % 13} as never}))
    await world.store.dbs.createRecords(world.accounts.acme!, db.id, records)
    const multi = (await call('POST', '/svc/dbs.json', {body: {db: {name: 'Multi', code: 'multi', schema: {tables: {a: {fields: {x: 'integer'}}, b: {fields: {x: 'integer'}}}}}}})).json
    multiId = multi.id
    for (const t of ['b', 'a']) {
      await world.store.dbs.createRecords(world.accounts.acme!, multi.id, Array.from({length: 700}, (_, i) => ({tableName: t, data: {x: i} as never, index: {} as never})))
    }
  })

  const reads = () => [
    `/svc/dbs/${dbId}/records.json?offset=2900&limit=100`,
    `/svc/dbs/${dbId}/records.json?offset=1500&limit=7&sort=n`,
    `/svc/dbs/${dbId}/search.json?filter[note]=rare*&offset=100&limit=100`,
    `/svc/dbs/${dbId}/search.json?filter[name]=p123`,
    `/svc/dbs/${dbId}/search.json?q=rare 1&sort=-name&limit=50`,
    `/svc/dbs/${dbId}/search.json?filter[n]=4&offset=200&limit=20`,
    `/svc/dbs/${dbId}/search.json?filter[n]=4&limit=20`,
    `/svc/dbs/${dbId}/search.json?sort=name&limit=10&offset=2000`,
    `/svc/dbs/${multiId}/records.json?after_id=0&limit=100`,
    `/svc/dbs/${multiId}/records.json?offset=1350&limit=100`,
    '/svc/db/scan/list?offset=2950&limit=100',
    '/svc/db/scan/search?q=rare&offset=500&limit=10&sort=name',
  ]
  const answers = async () => {
    const out: unknown[] = []
    for (const path of reads()) {
      const r = await ctx().call('GET', path, path.startsWith('/svc/db/') ? {as: null} : {})
      expect(r.status, `${path} → ${r.text}`).toBe(200)
      out.push(r.json)
    }
    return out
  }

  it('answers the same records in the same order on the reader threads as on the server\'s connection', async () => {
    const {world} = ctx()
    const onServer = await answers()
    // The deep public page holds the last 50 records, newest first; the export page the oldest 100 of every table.
    expect((onServer[10] as unknown[]).length).toBe(50)
    expect((onServer[8] as {id: number}[]).map((r) => r.id)).toEqual([...(onServer[8] as {id: number}[]).map((r) => r.id)].sort((a, b) => a - b))
    world.store.readers().start({threads: 2})
    try {
      expect(await answers()).toEqual(onServer)
      // A write answered is seen by the next read on a thread.
      const created = await ctx().call('POST', `/svc/dbs/${dbId}/records.json`, {body: {record: {data: {name: 'p-new', n: 1, note: 'rare new'}}}})
      const found = await ctx().call('GET', `/svc/dbs/${dbId}/search.json?filter[note]=rare n*`)
      expect(found.json.map((r: {id: number}) => r.id)).toEqual([created.json.id])
      await ctx().call('DELETE', `/svc/dbs/${dbId}/records/${created.json.id}.json`)
    } finally {
      await world.store.readers().stop()
    }
    expect(await answers()).toEqual(onServer)
  })

  it("the history's filtered lists answer the same on the reader threads, and see a write answered", async () => {
    const {call, world} = ctx()
    const lists = ['/svc/history.json?door=api&limit=5', `/svc/history.json?kind=db&op=create&limit=3`, `/svc/history.json?kind=record&db=${dbId}&limit=2`]
    const read = async () => Promise.all(lists.map(async (path) => (await call('GET', path)).json))
    const onServer = await read()
    expect(onServer[1].map((e: {id: string}) => e.id)).toEqual([String(multiId), String(dbId)])
    world.store.readers().start({threads: 2})
    try {
      expect(await read()).toEqual(onServer)
      const created = await call('POST', `/svc/dbs/${dbId}/records.json`, {body: {record: {data: {name: 'p-hist', n: 2, note: 'x'}}}})
      const newest = await call('GET', `/svc/history.json?kind=record&db=${dbId}&limit=1`)
      expect(newest.json.map((e: {id: string}) => e.id)).toEqual([String(created.json.id)])
      await call('DELETE', `/svc/dbs/${dbId}/records/${created.json.id}.json`)
      if (!pg && transport === 'in-process') {
        // Through the account's lane of the reader threads: a pile of them past LANE_MAX is refused, not queued on the server's thread.
        const pile = await Promise.all(Array.from({length: LANE_MAX + 8}, () => call('GET', '/svc/history.json?door=cli&limit=100')))
        expect(pile.some((r) => r.status === 429)).toBe(true)
      }
    } finally {
      await world.store.readers().stop()
    }
  })

  it.skipIf(pg || transport !== 'in-process')(`refuses an account's long reads past ${LANE_MAX} waiting (429); another account's still answers`, async () => {
    const {call, world} = ctx()
    const theirs = (await call('POST', '/svc/dbs.json', {as: 'mallory', body: {db: {name: 'Theirs', code: 'theirs'}}})).json
    await world.store.dbs.createRecords(world.accounts.other!, theirs.id, [{tableName: null, data: {note: 'rare one'} as never, index: {} as never}])
    world.store.readers().start({threads: 2})
    try {
      // Sent together: they all wait before the first is answered.
      const pile = await Promise.all(Array.from({length: LANE_MAX + 8}, () => call('GET', `/svc/dbs/${dbId}/search.json?filter[note]=*rare 2*&offset=10`)))
      const refused = pile.filter((r) => r.status === 429)
      expect(refused.length).toBeGreaterThan(0)
      expect(refused[0]!.headers.get('retry-after')).toBe('1')
      expect(refused[0]!.json.error).toMatch(/too many long reads/)
      expect(pile.filter((r) => r.status === 200).length + refused.length).toBe(pile.length)
      const other = await call('GET', `/svc/dbs/${theirs.id}/search.json?filter[note]=rare*`, {as: 'mallory'})
      expect(other.status).toBe(200)
      expect(other.json).toHaveLength(1)
      // Once the pile is answered, the account reads again.
      expect((await call('GET', `/svc/dbs/${dbId}/search.json?filter[note]=*rare 2*&offset=10`)).status).toBe(200)
    } finally {
      await world.store.readers().stop()
    }
  })
})
