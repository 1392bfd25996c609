// The public `subscribe` method over HTTP, both transports, both stores (docs/realtime.md "The
// public subscribe method"): each visitor's feed carries only the records their own scope selects,
// matched by the value the server rendered for them — never by what the client says (a forged
// cookie, an X-Forwarded-For without --trust-proxy); deletes are scoped by the row removed; a
// cross-site page gets nothing; Last-Event-ID resumes exactly once; the per-visitor quota answers a
// clear 429; a change of the db's public methods ends the stream.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createApp} from '../../src/http/app.js'
import {createServices} from '../../src/services/index.js'
import {createWorld, type World} from '../helpers/world.js'
import {openFeed, rawTransport, visitorCookie, type Feed, type RawTransport} from './public-helpers.js'

const POLL = {timeout: 20_000, interval: 50}

const BOOK = {
  name: 'Live book', code: 'livebook',
  schema: {fields: {message: 'string', visitor: 'string', ip: 'string'}},
  public_methods: {
    list: {scope_by: 'visitor'},
    create: {allowed_fields: ['message'], auto_fields: {visitor: '{cookie_key}', ip: '{ip}'}},
    subscribe: {scope_by: 'visitor'},
  },
}
const BY_IP = {
  name: 'By address', code: 'byip',
  schema: {fields: {message: 'string', ip: 'string'}},
  public_methods: {create: {auto_fields: {ip: '{ip}'}}, subscribe: {scope_by: 'ip'}},
}

for (const transport of ['in-process', 'http'] as const) {
  describe(`public subscribe [${transport}]`, {timeout: 120_000}, () => {
    let world: World
    let t: RawTransport
    let bookId = 0
    let jarA = ''
    let jarB = ''
    const open: Feed[] = []
    const feed = async (path: string, headers: Record<string, string> = {}) => {
      const f = await openFeed(t, path, headers)
      open.push(f)
      return f
    }
    const admin = () => ({authorization: `Bearer ${world.users.admin!.token}`, 'content-type': 'application/json'})
    const create = async (code: string, message: string, headers: Record<string, string> = {}) => {
      const r = await t.fetch(`/svc/db/${code}/create`, {method: 'POST', headers: {'content-type': 'application/json', ...headers}, body: JSON.stringify({data: {message}})})
      expect(r.status, await r.clone().text()).toBe(201)
      return {id: ((await r.json()) as {id: number}).id, headers: r.headers}
    }
    const messages = (f: Feed, event = 'create') => f.events.filter((e) => e.event === event).map((e) => e.data.data?.message ?? e.data.id)

    beforeAll(async () => {
      world = await createWorld(undefined, {quotas: {feeds_per_visitor: 3}})
      t = await rawTransport(transport, world.app)
      for (const db of [BOOK, BY_IP]) {
        const r = await t.fetch('/svc/dbs.json', {method: 'POST', headers: admin(), body: JSON.stringify({db})})
        expect(r.status, await r.clone().text()).toBe(201)
        if (db === BOOK) bookId = ((await r.json()) as {id: number}).id
      }
      jarA = visitorCookie((await create('livebook', 'A0')).headers)
      jarB = visitorCookie((await create('livebook', 'B0')).headers)
    })
    afterAll(async () => {
      for (const f of open) f.close()
      await t?.close()
      await world?.close()
    })

    it('the config: subscribe true or options; allowed_params only table_name; POST and a method not enabled refused', async () => {
      const bad = await t.fetch('/svc/dbs.json', {method: 'POST', headers: admin(), body: JSON.stringify({db: {name: 'x', code: 'x1', public_methods: {subscribe: {allowed_params: ['q']}}}})})
      expect(bad.status).toBe(422)
      expect(JSON.stringify(await bad.json())).toContain('table_name')
      const ok = await t.fetch('/svc/dbs.json', {method: 'POST', headers: admin(), body: JSON.stringify({db: {name: 'y', code: 'y1', public_methods: {subscribe: {allowed_params: ['table_name']}, list: true}}})})
      expect(ok.status).toBe(201)
      const off = await feed('/svc/db/byip/list')
      expect(off.status).toBe(404)
      const post = await t.fetch('/svc/db/livebook/subscribe', {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'})
      expect(post.status).toBe(400)
      const headers = await feed('/svc/db/y1/subscribe')
      expect(headers.status).toBe(200)
      expect(headers.headers.get('content-type')).toMatch(/^text\/event-stream/)
      expect(headers.headers.get('cache-control')).toMatch(/no-store/)
      headers.close()
    })

    it('two visitors each receive only their own new records; a member\'s edit and delete of one reach its visitor only', async () => {
      const a = await feed('/svc/db/livebook/subscribe', {cookie: jarA})
      const b = await feed('/svc/db/livebook/subscribe', {cookie: jarB})
      expect([a.status, b.status]).toEqual([200, 200])
      const a1 = await create('livebook', 'A1', {cookie: jarA})
      await create('livebook', 'B1', {cookie: jarB})
      await create('livebook', 'A2', {cookie: jarA})
      // A member writes a record in nobody's scope, and edits A1 (its visitor field stays).
      const member = await t.fetch(`/svc/dbs/${bookId}/records.json`, {method: 'POST', headers: admin(), body: JSON.stringify({record: {data: {message: 'staff'}}})})
      expect(member.status).toBe(201)
      const edit = await t.fetch(`/svc/dbs/${bookId}/records/${a1.id}.json`, {method: 'PATCH', headers: admin(), body: JSON.stringify({record: {data: {message: 'A1 edited'}}})})
      expect(edit.status, await edit.clone().text()).toBe(200)
      const del = await t.fetch(`/svc/dbs/${bookId}/records/${a1.id}.json`, {method: 'DELETE', headers: admin()})
      expect(del.status).toBe(204)
      await expect.poll(() => a.events.length, POLL).toBe(4)
      await expect.poll(() => b.events.length, POLL).toBe(1)
      expect(a.events.map((e) => e.event)).toEqual(['create', 'create', 'update', 'delete'])
      expect(messages(a)).toEqual(['A1', 'A2'])
      expect(a.events[2]!.data.data.message).toBe('A1 edited')
      expect(a.events[3]!.data).toEqual({id: a1.id, table_name: null})
      // The record as the public list shapes it: no table, no internals.
      expect(Object.keys(a.events[0]!.data).sort()).toEqual(['created_at', 'data', 'id', 'updated_at'])
      expect(messages(b)).toEqual(['B1'])
      // Ids are journal bookmarks, increasing.
      const ids = a.events.map((e) => e.id!)
      expect([...ids].sort()).toEqual(ids)
      a.close()
      b.close()
    })

    it('a forged or altered cookie is a new visitor: nothing of the visitor it names', async () => {
      const key = jarA.slice('svc_visitor='.length).split('.')[0]!
      for (const cookie of [`svc_visitor=${key}`, `svc_visitor=${key}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%3D`, `${jarA}x`]) {
        const forged = await feed('/svc/db/livebook/subscribe', {cookie})
        expect(forged.status).toBe(200)
        // A new visitor: a new cookie is issued.
        expect(forged.headers.get('set-cookie') ?? '').toMatch(/svc_visitor=/)
        const honest = await feed('/svc/db/livebook/subscribe', {cookie: jarA})
        await create('livebook', `A-${cookie.length}`, {cookie: jarA})
        await expect.poll(() => honest.events.length, POLL).toBe(1)
        // The honest feed got it; the forged one, opened earlier, got nothing (events are in journal order).
        await new Promise((r) => setTimeout(r, 50))
        expect(forged.events).toEqual([])
        forged.close()
        honest.close()
      }
    })

    it('{ip}: X-Forwarded-For is not the client\'s address without --trust-proxy', async () => {
      // A member writes a record whose ip field names another address.
      const r = await t.fetch('/svc/dbs/byip/records.json', {method: 'POST', headers: admin(), body: JSON.stringify({record: {data: {message: 'theirs', ip: '203.0.113.7'}}})})
      expect(r.status).toBe(201)
      const spoof = await feed('/svc/db/byip/subscribe', {'x-forwarded-for': '203.0.113.7'})
      const mine = await feed('/svc/db/byip/subscribe')
      await t.fetch('/svc/dbs/byip/records.json', {method: 'POST', headers: admin(), body: JSON.stringify({record: {data: {message: 'theirs again', ip: '203.0.113.7'}}})})
      await create('byip', 'mine', {'x-forwarded-for': '203.0.113.7'})
      await expect.poll(() => mine.events.length, POLL).toBe(1)
      expect(messages(mine)).toEqual(['mine'])
      // The spoofing feed is the peer's too: it sees the peer's record, never 203.0.113.7's.
      await expect.poll(() => spoof.events.length, POLL).toBe(1)
      expect(messages(spoof)).toEqual(['mine'])
      spoof.close()
      mine.close()
    })

    it('a cross-site page (Sec-Fetch-Site, Origin) gets a 403 whether or not it carries the cookie; the app\'s own page is served', async () => {
      for (const headers of [
        {cookie: jarA, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors'},
        {cookie: jarA, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors'},
        {'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors'},
        {cookie: jarA, origin: 'http://evil.example'},
        {cookie: jarA, origin: 'null'},
      ]) {
        const f = await feed('/svc/db/livebook/subscribe', headers as Record<string, string>)
        expect(f.status, JSON.stringify(headers)).toBe(403)
        expect(f.error).toEqual({error: expect.stringContaining('cross-site')})
      }
      const own = await feed('/svc/db/livebook/subscribe', {cookie: jarA, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', referer: `${t.origin}/`})
      expect(own.status).toBe(200)
      own.close()
    })

    it('Last-Event-ID resumes: every change missed, in order, once', async () => {
      const first = await feed('/svc/db/livebook/subscribe', {cookie: jarA})
      await create('livebook', 'R1', {cookie: jarA})
      await expect.poll(() => first.events.length, POLL).toBe(1)
      const last = first.events[0]!.id!
      first.close()
      for (const m of ['R2', 'R3']) await create('livebook', m, {cookie: jarA})
      await create('livebook', 'other', {cookie: jarB})
      await create('livebook', 'R4', {cookie: jarA})
      const again = await feed('/svc/db/livebook/subscribe', {cookie: jarA, 'last-event-id': last})
      await expect.poll(() => again.events.length, POLL).toBe(3)
      expect(messages(again)).toEqual(['R2', 'R3', 'R4'])
      await create('livebook', 'R5', {cookie: jarA})
      await expect.poll(() => again.events.length, POLL).toBe(4)
      expect(messages(again)).toEqual(['R2', 'R3', 'R4', 'R5'])
      // The query form (a client that reopens an EventSource itself).
      const byQuery = await feed(`/svc/db/livebook/subscribe?last_event_id=${encodeURIComponent(last)}`, {cookie: jarA})
      await expect.poll(() => byQuery.events.length, POLL).toBe(4)
      expect(messages(byQuery)).toEqual(['R2', 'R3', 'R4', 'R5'])
      // Not a bookmark: resync first.
      const bad = await feed('/svc/db/livebook/subscribe', {cookie: jarA, 'last-event-id': 'nonsense'})
      await expect.poll(() => bad.events.length, POLL).toBeGreaterThan(0)
      expect(bad.events[0]!.event).toBe('resync')
      for (const f of [again, byQuery, bad]) f.close()
    })

    it('a visitor holds at most feeds_per_visitor open feeds: then a clear 429; closing one frees its place', async () => {
      const held = [await feed('/svc/db/livebook/subscribe', {cookie: jarB}), await feed('/svc/db/livebook/subscribe', {cookie: jarB}), await feed('/svc/db/livebook/subscribe', {cookie: jarB})]
      expect(held.map((f) => f.status)).toEqual([200, 200, 200])
      const over = await feed('/svc/db/livebook/subscribe', {cookie: jarB})
      expect(over.status).toBe(429)
      expect(over.error).toEqual({error: expect.stringContaining('per visitor')})
      expect(over.headers.get('retry-after')).toBeTruthy()
      // Another visitor is not affected.
      const other = await feed('/svc/db/livebook/subscribe', {cookie: jarA})
      expect(other.status).toBe(200)
      other.close()
      held[0]!.close()
      await expect.poll(async () => {
        const f = await feed('/svc/db/livebook/subscribe', {cookie: jarB})
        f.close()
        return f.status
      }, POLL).toBe(200)
      for (const f of held) f.close()
    })

    it('a change of the public methods ends the stream; the reconnect meets the new configuration', async () => {
      const f = await feed('/svc/db/livebook/subscribe', {cookie: jarA})
      expect(f.status).toBe(200)
      // Renaming the db (not its methods) leaves the feed open.
      const rename = await t.fetch(`/svc/dbs/${bookId}.json`, {method: 'PATCH', headers: admin(), body: JSON.stringify({db: {name: 'Live book 2'}})})
      expect(rename.status).toBe(200)
      await create('livebook', 'still', {cookie: jarA})
      await expect.poll(() => f.events.length, POLL).toBe(1)
      expect(f.ended()).toBe(false)
      const {subscribe: _, ...rest} = BOOK.public_methods
      const patch = await t.fetch(`/svc/dbs/${bookId}.json`, {method: 'PATCH', headers: admin(), body: JSON.stringify({db: {public_methods: rest}})})
      expect(patch.status).toBe(200)
      await expect.poll(() => f.ended(), POLL).toBe(true)
      const after = await feed('/svc/db/livebook/subscribe', {cookie: jarA, 'last-event-id': f.lastId()!})
      expect(after.status).toBe(404)
    })
  })
}

describe('public subscribe and the public read budgets', {timeout: 60_000}, () => {
  it('opening a feed is charged to the visitor\'s address: past the budget a 429, a member is not limited', async () => {
    const world = await createWorld(undefined, {quotas: {public_read_ms_per_ip: 1, public_read_ms_per_visitor: 0, public_read_ms_per_db: 0}})
    const t = await rawTransport('in-process', world.app)
    try {
      const r = await t.fetch('/svc/dbs.json', {method: 'POST', headers: {authorization: `Bearer ${world.users.admin!.token}`, 'content-type': 'application/json'},
        body: JSON.stringify({db: {name: 'Open', code: 'openfeed', public_methods: {subscribe: true}}})})
      expect(r.status).toBe(201)
      const first = await openFeed(t, '/svc/db/openfeed/subscribe')
      expect(first.status).toBe(200)
      first.close()
      const second = await openFeed(t, '/svc/db/openfeed/subscribe')
      expect(second.status).toBe(429)
      expect(second.headers.get('retry-after')).toBeTruthy()
      const member = await openFeed(t, '/svc/db/openfeed/subscribe', {authorization: `Bearer ${world.users.admin!.token}`})
      expect(member.status).toBe(200)
      member.close()
    } finally {
      await t.close()
      await world.close()
    }
  })
})

describe('public subscribe scoped by the signed-in user', {timeout: 60_000}, () => {
  it('receives the user\'s own records, and ends once their sign-in is revoked', async () => {
    const world = await createWorld()
    const services = createServices(world.store, {feeds: {recheckMs: 100}})
    const t = await rawTransport('in-process', createApp({...world.deps, services}))
    const as = (login: string) => ({authorization: `Bearer ${world.users[login]!.token}`, 'content-type': 'application/json'})
    try {
      const r = await t.fetch('/svc/dbs.json', {method: 'POST', headers: as('admin'),
        body: JSON.stringify({db: {name: 'Mine', code: 'mine', public_methods: {create: {auto_fields: {owner: '{user_id}'}}, subscribe: {scope_by: 'owner'}}}})})
      expect(r.status).toBe(201)
      const feed = await openFeed(t, '/svc/db/mine/subscribe', as('alice'))
      const other = await openFeed(t, '/svc/db/mine/subscribe', as('admin'))
      expect([feed.status, other.status]).toEqual([200, 200])
      for (const login of ['alice', 'admin']) {
        const c = await t.fetch('/svc/db/mine/create', {method: 'POST', headers: as(login), body: JSON.stringify({data: {by: login}})})
        expect(c.status).toBe(201)
      }
      await expect.poll(() => feed.events.map((e) => e.data.data.by), POLL).toEqual(['alice'])
      await expect.poll(() => other.events.map((e) => e.data.data.by), POLL).toEqual(['admin'])
      const revoked = await t.fetch(`/svc/users/${world.users.alice!.id}/revoke_tokens.json`, {method: 'POST', headers: as('admin'), body: '{}'})
      expect(revoked.status).toBe(200)
      await expect.poll(() => feed.ended(), POLL).toBe(true)
      expect(other.ended()).toBe(false)
      other.close()
    } finally {
      await t.close()
      await services.stop()
      await world.close()
    }
  })
})
