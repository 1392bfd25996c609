// Ordering and exactly-once across reconnects with concurrent writers, over both transports. On
// PostgreSQL with two instances (two stores, services and apps over one database, as two `svc serve`
// would be): writers write through both, and the client reconnects to the other instance each
// time, resuming from its Last-Event-ID. The hubs' safety poll is off (a minute): what wakes them is
// the commit's notification (PostgreSQL) or the commit itself (SQLite).
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createApp, type SvcApp} from '../../src/http/app.js'
import {createServices, type Services} from '../../src/services/index.js'
import type {Store} from '../../src/store/index.js'
import {createWorld, TRANSPORTS, type World} from '../helpers/world.js'
import {pg} from '../helpers/pg.js'
import {changes, openFeed, rawTransport, type Feed, type RawTransport} from './feed-client.js'

const POLL = {timeout: 60_000, interval: 20}
// A ring of 8 entries: most resumes read the journal (the path of a client away for long), some the ring.
const FEEDS = {heartbeatMs: 150, pollMs: 60_000, ring: 8}

describe.each(TRANSPORTS)(`exactly once, in order, across reconnects (%s${pg ? ', two PostgreSQL instances' : ''})`, (transport) => {
  let world: World
  let second: {store: Store; services: Services; app: SvcApp} | undefined
  const transports: RawTransport[] = []
  let dbId: number

  beforeAll(async () => {
    world = await createWorld(undefined, {feeds: FEEDS})
    transports.push(await rawTransport(transport, world.app))
    if (pg) {
      const store = await world.reopen()
      const services = createServices(store, {feeds: FEEDS})
      second = {store, services, app: createApp({...world.deps, store, services})}
      transports.push(await rawTransport(transport, second.app))
    }
    const res = await world.app.request('http://localhost/svc/dbs.json', {
      method: 'POST', headers: {authorization: `Bearer ${world.users.admin!.token}`, 'content-type': 'application/json'},
      body: JSON.stringify({db: {name: 'Race', code: 'race'}}),
    })
    dbId = (await res.json()).id
  })
  afterAll(async () => {
    for (const t of transports) await t.close()
    await second?.services.stop()
    await second?.store.close()
    await world?.close()
  })

  it('every change reaches the client once, in journal order, while it reconnects', async () => {
    const apps = [world.app, second?.app ?? world.app]
    const headers = {authorization: `Bearer ${world.users.alice!.token}`, 'content-type': 'application/json'}
    const write = async (app: SvcApp, method: string, path: string, body: unknown) => {
      const res = await app.request(`http://localhost${path}`, {method, headers, body: JSON.stringify(body)})
      expect(res.status).toBeLessThan(300)
      return res.json()
    }
    const seen: {event: string; id: string; record: number}[] = []
    let feed: Feed = await openFeed(transports[0]!, `/svc/dbs/${dbId}/changes`, headers)
    expect(feed.status).toBe(200)
    await expect.poll(() => feed.comments, POLL).toBeGreaterThan(0)
    // Four writers, each through an instance of its own (two on one instance without PostgreSQL): creates then updates.
    const expected: string[] = []
    let writing = true
    const writers = Promise.all([0, 1, 2, 3].map(async (w) => {
      for (let i = 0; i < 20; i++) {
        const app = apps[w % apps.length]!
        const created = await write(app, 'POST', `/svc/dbs/${dbId}/records.json`, {record: {data: {w, i}}})
        expected.push(`create:${created.id}`)
        await write(app, 'PATCH', `/svc/dbs/${dbId}/records/${created.id}.json`, {record: {data: {w, i, again: true}}})
        expected.push(`update:${created.id}`)
      }
    })).finally(() => (writing = false))
    // The client: takes a few events, hangs up, reconnects (to the other instance) from its last id.
    let reconnects = 0
    for (let round = 0; writing || seen.length < expected.length; round++) {
      await expect.poll(() => changes(feed).length >= 5 || (!writing && seen.length + changes(feed).length >= expected.length), POLL).toBe(true).catch(async (e) => {
        console.log(round, writing, seen.length, expected.length, feed.status, feed.ended, feed.lastId, feed.events.length, world.services.feeds.hub.head(), second?.services.feeds.hub.head(), await world.store.journal.head(), world.services.feeds.hub.size(), second?.services.feeds.hub.size())
        throw e
      })
      feed.close()
      for (const e of changes(feed)) seen.push({event: e.event, id: e.id!, record: e.data.id})
      expect(feed.lastId).toBeDefined()
      feed = await openFeed(transports[(round + 1) % transports.length]!, `/svc/dbs/${dbId}/changes`, {...headers, 'last-event-id': feed.lastId!})
      expect(feed.status).toBe(200)
      reconnects++
      if (!writing && seen.length >= expected.length) break
    }
    await writers
    feed.close()
    expect(reconnects).toBeGreaterThan(3)
    expect(seen.filter((e) => e.event === 'resync')).toEqual([])
    // Once each, and in the order of their bookmarks (which is the journal's order).
    expect(seen.map((e) => `${e.event}:${e.record}`).sort()).toEqual([...expected].sort())
    const ids = seen.map((e) => e.id)
    expect([...ids].sort()).toEqual(ids)
    expect(new Set(ids).size).toBe(ids.length)
    // A record's create comes before its update.
    for (const e of seen.filter((x) => x.event === 'update')) {
      expect(seen.findIndex((x) => x.event === 'create' && x.record === e.record)).toBeLessThan(seen.indexOf(e))
    }
  })
})
