// The journal's retention (docs/history.md "Retention and sizing"): entries older than the retention
// go, each resource keeping its newest versions; dbs deleted longer ago are purged; in slices. Both stores.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {journalRetention} from '../../src/services/journal-retention.js'
import {rawQuery} from '../helpers/pg.js'
import {createWorld, type World} from '../helpers/world.js'

describe('journal retention', () => {
  let world: World
  beforeAll(async () => {
    world = await createWorld({accounts: ['acme'], users: [{login: 'admin', role: 'admin'}]})
  })
  afterAll(async () => world?.close())

  it('prunes entries past the retention but keeps each resource\'s newest versions, and purges dbs deleted before it', async () => {
    const acme = world.accounts.acme!
    const admin = world.users.admin!.id
    const data = (content: string) => ({name: 'Kept', code: 'kept', content, kind: 'chat', scope: 'account', scopeId: null, fields: {}}) as never
    const busy = await world.store.prompts.create(acme, admin, data('v0'))
    for (let i = 1; i <= 14; i++) await world.store.prompts.update(acme, busy.id, data(`v${i}`))
    const quiet = await world.store.prompts.create(acme, admin, {...(data('once') as object), code: 'quiet'} as never)
    const db = await world.store.dbs.create(acme, {name: 'Old', code: 'old', app_id: null, schema: null, public_methods: {}, fields: {}} as never)
    for (let i = 0; i < 3; i++) await world.store.dbs.createRecord(acme, db.id, {tableName: null, data: {i} as never, index: {}})
    await world.store.dbs.delete(acme, db.id)
    const fresh = await world.store.prompts.create(acme, admin, {...(data('new') as object), code: 'fresh'} as never)

    const old = new Date(Date.now() - 40 * 86_400_000).toISOString()
    await rawQuery(world, 'UPDATE journal SET at = ? WHERE NOT (kind = ? AND resource_id = ?)', [old, 'prompt', fresh.id])
    await rawQuery(world, 'UPDATE dbs SET deleted_at = ? WHERE id = ?', [old, db.id])
    const count = async (kind: string, id: string | number) =>
      Number((await rawQuery(world, 'SELECT count(*) AS n FROM journal WHERE kind = ? AND resource_id = ?', [kind, String(id)]))[0].n)
    expect(await count('prompt', busy.id)).toBe(15)

    const retention = journalRetention(world.store, {minVersions: 10})
    const removed = await retention.runOnce()
    await retention.stop()
    expect(await count('prompt', busy.id)).toBe(10) // the newest 10 of 15
    const kept = await world.store.journal.list(acme, {kinds: ['prompt'], id: busy.id, limit: 100})
    expect(kept.map((e) => (e.state as {content: string}).content)).toEqual(Array.from({length: 10}, (_, i) => `v${14 - i}`))
    expect(await count('prompt', quiet.id)).toBe(1) // old, but its only version
    expect(await count('prompt', fresh.id)).toBe(1)
    expect(await count('db', db.id)).toBe(0) // deleted before the retention: gone with its versions
    expect(Number((await rawQuery(world, "SELECT count(*) AS n FROM journal WHERE kind = 'record'"))[0].n)).toBe(0) // its records' too
    expect(removed).toBe(5 + 2 + 3)
    // The db deleted 40 days ago is purged: its records and its row.
    expect(await rawQuery(world, 'SELECT id FROM dbs WHERE id = ?', [db.id])).toEqual([])
    expect(Number((await rawQuery(world, 'SELECT count(*) AS n FROM db_records WHERE db_id = ?', [db.id]))[0].n)).toBe(0)
  })
})
