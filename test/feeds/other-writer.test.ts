// A write made by another store over the same data reaches the feeds: on SQLite another process on
// the same file (the CLI's `--data`, a second store here) is found by the hub's safety poll; on
// PostgreSQL another instance's commit notifies.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createApp} from '../../src/http/app.js'
import {createServices, type Services} from '../../src/services/index.js'
import type {Store} from '../../src/store/index.js'
import {createWorld, type World} from '../helpers/world.js'
import {changes, openFeed, rawTransport, type RawTransport} from './feed-client.js'

const POLL = {timeout: 30_000, interval: 20}

describe('a write through another store over the same data', () => {
  let world: World
  let t: RawTransport
  let other: {store: Store; services: Services} | undefined

  beforeAll(async () => {
    world = await createWorld(undefined, {feeds: {heartbeatMs: 200, pollMs: 300}})
    t = await rawTransport('http', world.app)
  })
  afterAll(async () => {
    await t?.close()
    await other?.services.stop()
    await other?.store.close()
    await world?.close()
  })

  it('reaches the open feeds', async () => {
    const headers = {authorization: `Bearer ${world.users.admin!.token}`, 'content-type': 'application/json'}
    const db = await (await world.app.request('http://localhost/svc/dbs.json', {method: 'POST', headers, body: JSON.stringify({db: {name: 'X', code: 'x'}})})).json()
    const feed = await openFeed(t, `/svc/dbs/${db.id}/changes`, headers)
    expect(feed.status).toBe(200)
    const store = await world.reopen()
    const services = createServices(store)
    other = {store, services}
    const app = createApp({...world.deps, store, services})
    const res = await app.request(`http://localhost/svc/dbs/${db.id}/records.json`, {method: 'POST', headers, body: JSON.stringify({record: {data: {from: 'elsewhere'}}})})
    expect(res.status).toBe(201)
    const record = await res.json()
    await expect.poll(() => changes(feed).map((e) => [e.event, e.data.id]), POLL).toEqual([['create', record.id]])
    feed.close()
  })
})
