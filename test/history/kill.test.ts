// A journal entry never exists without its write, nor a write without its entry: `svc serve` is
// killed (SIGKILL) in the middle of a burst of record creates, updates and deletes; what the data
// holds afterwards and what the journal says agree exactly. Both stores.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svcServe} from '../helpers/cli.js'
import {rawQuery} from '../helpers/pg.js'
import {createWorld, type World} from '../helpers/world.js'

describe('kill -9 in the middle of a burst', () => {
  let world: World
  beforeAll(async () => {
    world = await createWorld({accounts: ['acme'], users: [{login: 'admin', role: 'admin'}]})
  })
  afterAll(async () => world?.close())

  it('loses neither a write\'s entry nor an entry\'s write', async () => {
    const server = await svcServe(world.dataDir, world.databaseUrl ? ['--database-url', world.databaseUrl] : [])
    const headers = {authorization: `Bearer ${world.users.admin!.token}`, 'content-type': 'application/json'}
    const call = (method: string, path: string, body?: unknown) =>
      fetch(server.url + path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)}).catch(() => null)
    const db = await (await call('POST', '/svc/dbs.json', {db: {name: 'Burst', code: 'burst'}}))!.json()
    let stop = false
    let acknowledged = 0
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const made = await call('POST', `/svc/dbs/${db.id}/records.json`, {record: {data: {w, i}}})
        if (!made || made.status !== 201) return
        acknowledged++
        const {id} = await made.json()
        if (i % 3 === 1) await call('PATCH', `/svc/dbs/${db.id}/records/${id}.json`, {record: {data: {w, i, again: true}}})
        if (i % 5 === 2) await call('DELETE', `/svc/dbs/${db.id}/records/${id}.json`)
      }
    }
    const workers = Array.from({length: 8}, (_, w) => worker(w))
    // Killed mid-burst once 40 creates are acknowledged (a count, not a time: as many on any machine).
    while (acknowledged < 40) await new Promise((r) => setTimeout(r, 5))
    await server.stop('SIGKILL')
    stop = true
    await Promise.all(workers)

    // The data dir as the killed server left it, opened again (SQLite recovers its WAL).
    const store = await world.reopen()
    await store.close()
    const records = await rawQuery(world, 'SELECT id, data, updated_at FROM db_records WHERE db_id = ? ORDER BY id', [db.id])
    const entries = await rawQuery(world, "SELECT resource_id, op, state FROM journal WHERE kind = 'record' AND parent_id = ? ORDER BY pos", [String(db.id)])
    expect(records.length + entries.length).toBeGreaterThan(10)
    // Replaying the journal gives exactly the records the data holds, each at its last version.
    const replayed = new Map<string, {data: string; updated_at: string}>()
    for (const e of entries) {
      if (e.op === 'delete') replayed.delete(e.resource_id)
      else replayed.set(e.resource_id, JSON.parse(e.state))
    }
    expect([...replayed.keys()].map(Number).sort((a, b) => a - b)).toEqual(records.map((r: {id: number}) => Number(r.id)))
    for (const r of records) {
      const kept = replayed.get(String(r.id))!
      expect(typeof r.data === 'string' ? r.data : JSON.stringify(r.data)).toBe(kept.data)
      expect(r.updated_at).toBe(kept.updated_at)
    }
  })
})
