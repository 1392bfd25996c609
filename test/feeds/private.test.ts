import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createWorld, TRANSPORTS, type World} from '../helpers/world.js'
import {changes, openFeed, rawTransport, type RawTransport} from './feed-client.js'

const POLL = {timeout: 20_000, interval: 20}

describe.each(TRANSPORTS)('private live feeds (%s)', (transport) => {
  let world: World
  let t: RawTransport
  let dbId: number
  const auth = (login = 'alice') => ({authorization: `Bearer ${world.users[login]!.token}`})
  const call = async (method: string, path: string, body?: unknown, login = 'admin') => {
    const res = await world.app.request(`http://localhost${path}`, {
      method, headers: {...auth(login), 'content-type': 'application/json'}, body: body === undefined ? undefined : JSON.stringify(body),
    })
    return {status: res.status, body: res.status === 204 ? null : await res.json()}
  }

  beforeAll(async () => {
    world = await createWorld(undefined, {feeds: {heartbeatMs: 200, pollMs: 200}})
    t = await rawTransport(transport, world.app)
    const db = await call('POST', '/svc/dbs.json', {db: {name: 'Notes', code: 'notes'}})
    expect(db.status).toBe(201)
    dbId = db.body.id
  })
  afterAll(async () => {
    await t?.close()
    await world?.close()
  })

  it('pushes creates, updates and deletes as the records API shapes them, with bookmarks as ids', async () => {
    const feed = await openFeed(t, `/svc/dbs/${dbId}/changes`, auth())
    expect(feed.status).toBe(200)
    expect(feed.headers.get('content-type')).toMatch(/^text\/event-stream/)
    await expect.poll(() => feed.comments, POLL).toBeGreaterThan(0) // connected
    const created = await call('POST', `/svc/dbs/${dbId}/records.json`, {record: {data: {text: 'one'}}})
    expect(created.status).toBe(201)
    const updated = await call('PATCH', `/svc/dbs/${dbId}/records/${created.body.id}.json`, {record: {data: {text: 'two'}}})
    expect(updated.status).toBe(200)
    expect((await call('DELETE', `/svc/dbs/${dbId}/records/${created.body.id}.json`)).status).toBeLessThan(300)
    await expect.poll(() => changes(feed).length, POLL).toBe(3)
    const [c, u, d] = changes(feed)
    expect(c).toMatchObject({event: 'create', data: created.body})
    expect(u).toMatchObject({event: 'update', data: updated.body})
    expect(d).toMatchObject({event: 'delete', data: {id: created.body.id, table_name: null}})
    expect(c!.id! < u!.id! && u!.id! < d!.id!).toBe(true)
    const history = (await call('GET', `/svc/history.json?kind=record&id=${created.body.id}`)).body
    expect(history.map((e: {bookmark: string}) => e.bookmark).reverse()).toEqual([c!.id, u!.id, d!.id])
    feed.close()
  })

  it('answers with every header a JSON answer carries (request id, security headers), and the stream\'s own', async () => {
    const json = await t.fetch(`/svc/dbs/${dbId}.json`, {headers: {...auth(), 'x-request-id': 'json-1'}})
    expect(json.status).toBe(200)
    const feed = await openFeed(t, `/svc/dbs/${dbId}/changes`, {...auth(), 'x-request-id': 'feed-1'})
    expect(feed.status).toBe(200)
    expect(feed.headers.get('x-request-id')).toBe('feed-1')
    for (const name of ['x-content-type-options', 'referrer-policy', 'content-security-policy', 'x-frame-options']) {
      expect(json.headers.get(name), name).toBeTruthy()
      expect(feed.headers.get(name), name).toBe(json.headers.get(name))
    }
    expect(feed.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(feed.headers.get('cache-control')).toBe('no-store, no-transform')
    expect(feed.headers.get('x-accel-buffering')).toBe('no')
    // A refused feed is an ordinary answer, with the same headers.
    const refused = await t.fetch(`/svc/dbs/${dbId}/changes?record_id=x`, {headers: {...auth(), 'x-request-id': 'feed-2'}})
    expect(refused.status).toBe(400)
    expect(refused.headers.get('x-request-id')).toBe('feed-2')
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff')
    await expect.poll(() => feed.comments, POLL).toBeGreaterThan(0)
    feed.close()
  })

  it('resumes from Last-Event-ID with every change missed, in order, once', async () => {
    const feed = await openFeed(t, `/svc/dbs/${dbId}/changes`, auth())
    const first = await call('POST', `/svc/dbs/${dbId}/records.json`, {record: {data: {n: 0}}})
    await expect.poll(() => changes(feed).length, POLL).toBe(1)
    feed.close()
    const ids: number[] = [first.body.id]
    for (let i = 1; i <= 5; i++) ids.push((await call('POST', `/svc/dbs/${dbId}/records.json`, {record: {data: {n: i}}})).body.id)
    const again = await openFeed(t, `/svc/dbs/${dbId}/changes`, {...auth(), 'last-event-id': feed.lastId!})
    await expect.poll(() => changes(again).length, POLL).toBe(5)
    expect(changes(again).map((e) => e.data.id)).toEqual(ids.slice(1))
    again.close()
  })

  it('filters by table and by record, and answers 400 for a bad record_id', async () => {
    const multi = await call('POST', '/svc/dbs.json', {db: {name: 'Multi', code: 'multi', schema: {tables: {todo: {fields: {text: 'string'}}, done: {fields: {text: 'string'}}}}}})
    expect(multi.status).toBe(201)
    const todo = await openFeed(t, `/svc/dbs/multi/changes?table_name=todo`, auth())
    const first = await call('POST', `/svc/dbs/multi/records.json`, {record: {table_name: 'todo', data: {text: 'a'}}})
    expect(first.status).toBe(201)
    const one = await openFeed(t, `/svc/dbs/multi/changes?record_id=${first.body.id}`, auth())
    await expect.poll(() => one.comments, POLL).toBeGreaterThan(0)
    const other = await call('POST', `/svc/dbs/multi/records.json`, {record: {table_name: 'done', data: {text: 'b'}}})
    expect(other.status).toBe(201)
    await call('PATCH', `/svc/dbs/multi/records/${other.body.id}.json`, {record: {table_name: 'done', data: {text: 'c'}}})
    await call('PATCH', `/svc/dbs/multi/records/${first.body.id}.json`, {record: {table_name: 'todo', data: {text: 'd'}}})
    await expect.poll(() => changes(todo).map((e) => `${e.event}:${e.data.id}`), POLL).toEqual([`create:${first.body.id}`, `update:${first.body.id}`])
    // (A feed opened without a bookmark may also carry a change made just before it opened: the create here.)
    await expect.poll(() => changes(one).map((e) => `${e.event}:${e.data.id}`).at(-1), POLL).toEqual(`update:${first.body.id}`)
    expect(changes(one).every((e) => e.data.id === first.body.id)).toBe(true)
    todo.close()
    one.close()
    const bad = await openFeed(t, `/svc/dbs/multi/changes?record_id=x`, auth())
    expect(bad.status).toBe(400)
  })

  it('answers 401 without a caller and 404 for another account\'s db', async () => {
    const anonymous = await openFeed(t, `/svc/dbs/${dbId}/changes`)
    expect(anonymous.status).toBe(401)
    const foreign = await openFeed(t, `/svc/dbs/${dbId}/changes`, auth('mallory'))
    expect(foreign.status).toBe(404)
  })
})

describe.each(TRANSPORTS)('a private feed answered (%s)', (transport) => {
  it('misses no write made right after its answer, even as the instance\'s first feed (its hub still starting)', async () => {
    const world = await createWorld(undefined, {feeds: {heartbeatMs: 60_000, pollMs: 60_000}})
    const t = await rawTransport(transport, world.app)
    try {
      const auth = {authorization: `Bearer ${world.users.admin!.token}`, 'content-type': 'application/json'}
      const post = (path: string, body: unknown) => world.app.request(`http://localhost${path}`, {method: 'POST', headers: auth, body: JSON.stringify(body)})
      const db = await (await post('/svc/dbs.json', {db: {name: 'Fresh', code: 'fresh'}})).json()
      // The hub's first reading of the journal's head is slow (a busy database): a feed answered before
      // that reading took its place would start after the write below and never send it.
      const head = world.store.journal.head.bind(world.store.journal)
      world.store.journal.head = async () => {
        await new Promise((resolve) => setTimeout(resolve, 1000))
        return head()
      }
      const feed = await openFeed(t, `/svc/dbs/${db.id}/changes`, auth)
      expect(feed.status).toBe(200)
      // No wait for a heartbeat: the answer itself is the promise that what follows is seen.
      const created = await (await post(`/svc/dbs/${db.id}/records.json`, {record: {data: {text: 'right after'}}})).json()
      await expect.poll(() => changes(feed).map((e) => [e.event, e.data?.id]), {timeout: 20_000, interval: 20}).toEqual([['create', created.id]])
      feed.close()
    } finally {
      await t.close()
      await world.close()
    }
  })
})
