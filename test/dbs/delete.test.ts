// Deleting a db. One DELETE of a 1M-record db held SQLite's (the server's) thread ~38 s: now the db
// is hidden in one short transaction (its code free at once) and journaled; its records stay until
// the journal's retention (a restore brings the db back with them: docs/history.md), then go
// PURGE_SLICE per transaction with turns of the event loop between, run by the server. Both stores,
// both transports.
import {expect, it} from 'vitest'
import {PURGE_SLICE} from '../../src/store/dbs/repo.js'
import {svcServe} from '../helpers/cli.js'
import {pg, rawQuery} from '../helpers/pg.js'
import {describeBothTransports} from '../helpers/scenarios.js'

/** More than two slices, and not a multiple of one: the last slice is a short one. */
const MANY = PURGE_SLICE * 2 + 345

const records = (n: number) => Array.from({length: n}, (_, i) => ({tableName: null, data: {title: `r${i}`} as never, index: {}}))

describeBothTransports('deleting a db', undefined, (ctx) => {
  const countOf = async (dbId: number) => Number((await rawQuery(ctx().world, 'SELECT count(*) AS n FROM db_records WHERE db_id = ?', [dbId]))[0].n)
  const dbRow = async (dbId: number) => rawQuery(ctx().world, 'SELECT id, code, deleted_at FROM dbs WHERE id = ?', [dbId])
  /** SQLite's trigram index holds back its delete-merges during a purge (FTS5 'deletemerge', default 10 %). */
  const deleteMerge = async () => pg ? 'none' : (await rawQuery(ctx().world, "SELECT v FROM db_records_fts_config WHERE k = 'deletemerge'"))[0]?.v

  it('hides the db at once and keeps its records until the purge; the account\'s other db and another account keep theirs; the code is free again', async () => {
    const {call, world} = ctx()
    const big = (await call('POST', '/svc/dbs.json', {body: {db: {name: 'Big', code: 'big'}}})).json
    const kept = (await call('POST', '/svc/dbs.json', {body: {db: {name: 'Kept', code: 'kept'}}})).json
    const theirs = (await call('POST', '/svc/dbs.json', {as: 'mallory', body: {db: {name: 'Big', code: 'big'}}})).json
    await world.store.dbs.createRecords(world.accounts.acme!, big.id, records(MANY))
    await world.store.dbs.createRecords(world.accounts.acme!, kept.id, records(3))
    await world.store.dbs.createRecords(world.accounts.other!, theirs.id, records(5))
    expect(await countOf(big.id)).toBe(MANY)

    expect((await call('DELETE', `/svc/dbs/${big.id}.json`, {as: 'mallory'})).status).toBe(404) // another account's db
    expect((await call('GET', '/svc/dbs/big.json')).json.records_count).toBe(MANY)
    expect((await call('DELETE', '/svc/dbs/big.json')).status).toBe(204)
    expect(await countOf(big.id)).toBe(MANY) // kept for a restore, until retention
    expect((await dbRow(big.id))[0].code).toBe(null)
    await world.store.dbs.purgeDeleted()

    expect(await countOf(big.id)).toBe(0)
    expect(await dbRow(big.id)).toEqual([])
    expect(await deleteMerge()).toBe(pg ? 'none' : 10)
    expect((await call('GET', '/svc/dbs/big.json')).status).toBe(404)
    expect((await call('GET', `/svc/dbs/${big.id}.json`)).status).toBe(404)
    expect((await call('GET', '/svc/dbs/kept.json')).json.records_count).toBe(3)
    expect((await call('GET', '/svc/dbs/big.json', {as: 'mallory'})).json.records_count).toBe(5)
    expect((await call('DELETE', `/svc/dbs/${big.id}.json`)).status).toBe(404)

    const again = (await call('POST', '/svc/dbs.json', {body: {db: {name: 'Big again', code: 'big'}}}))
    expect(again.status).toBe(201)
    expect(again.json.records_count).toBe(0)
    expect((await call('GET', '/svc/dbs/big/records.json')).json).toEqual([])
  })

  it('a db marked deleted is gone from every read and write at once; a server purges it once past retention', async () => {
    const {call, world} = ctx()
    const half = (await call('POST', '/svc/dbs.json', {body: {db: {name: 'Half', code: 'half', public_methods: {list: true, create: true}}}})).json
    await world.store.dbs.createRecords(world.accounts.acme!, half.id, records(MANY))
    // What a server stopped in the middle of a delete leaves: the mark, the code freed, records left.
    await rawQuery(world, 'UPDATE dbs SET deleted_at = ?, code = NULL WHERE id = ?', [new Date(Date.now() - 31 * 86_400_000).toISOString(), half.id])
    await rawQuery(world, `DELETE FROM db_records WHERE id IN (SELECT id FROM db_records WHERE db_id = ? LIMIT ${PURGE_SLICE})`, [half.id])
    if (!pg) await rawQuery(world, "INSERT INTO db_records_fts (db_records_fts, rank) VALUES ('deletemerge', 0)")
    // Another server has changed the db: the cached definition of this one is trusted only until the
    // epoch moves, which a write through this server does.
    await call('POST', '/svc/dbs.json', {body: {db: {name: 'Touch', code: 'touch'}}})

    expect((await call('GET', '/svc/dbs.json')).json.map((d: {code: string}) => d.code)).not.toContain('half')
    expect((await call('GET', `/svc/dbs/${half.id}.json`)).status).toBe(404)
    expect((await call('GET', `/svc/dbs/${half.id}/records.json`)).status).toBe(404)
    expect((await call('POST', `/svc/dbs/${half.id}/records.json`, {body: {record: {data: {title: 'late'}}}})).status).toBe(404)
    expect((await call('PATCH', `/svc/dbs/${half.id}.json`, {body: {db: {name: 'Back'}}})).status).toBe(404)
    expect((await call('DELETE', `/svc/dbs/${half.id}.json`)).status).toBe(404)
    expect((await call('GET', '/svc/db/half/list', {as: null})).status).toBe(404) // its public methods went with its code
    await expect(world.store.dbs.createRecord(world.accounts.acme!, half.id, records(1)[0]!)).rejects.toMatchObject({status: 422})
    expect(await countOf(half.id)).toBe(MANY - PURGE_SLICE)

    const server = await svcServe(world.dataDir, world.databaseUrl ? ['--database-url', world.databaseUrl] : [])
    try {
      while ((await dbRow(half.id)).length) await new Promise((r) => setTimeout(r, 50))
      expect(await countOf(half.id)).toBe(0)
      expect(await deleteMerge()).toBe(pg ? 'none' : 10)
    } finally {
      await server.stop()
    }
  })
})
