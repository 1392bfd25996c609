// Live feeds at their edges, over both transports and both stores: resync past retention (and for a
// bookmark the server never wrote), the quotas' 429, a slow consumer dropped with `resync` instead of
// buffered, a revoked token and a deleted db ending their feeds, and the account-wide feed's read rules.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {journalRetention} from '../../src/services/journal-retention.js'
import {createWorld, TRANSPORTS, type World} from '../helpers/world.js'
import {changes, openFeed, rawTransport, type RawTransport} from './feed-client.js'

const POLL = {timeout: 30_000, interval: 20}

describe.each(TRANSPORTS)('live feeds at their limits (%s)', (transport) => {
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
  const create = async (data: Record<string, unknown>, db = dbId) => {
    const res = await call('POST', `/svc/dbs/${db}/records.json`, {record: {data}})
    expect(res.status).toBe(201)
    return res.body as {id: number}
  }

  beforeAll(async () => {
    world = await createWorld({
      accounts: ['acme', 'other'],
      users: [{login: 'admin', role: 'admin'}, {login: 'alice', role: 'user'}, {login: 'bob', role: 'user'}, {login: 'carol', role: 'user'}, {login: 'mallory', account: 'other', role: 'admin'}],
    }, {
      quotas: {feeds_per_account: 3, feed_queue_bytes: 16 * 1024},
      feeds: {heartbeatMs: 100, pollMs: 200, recheckMs: 100},
    })
    t = await rawTransport(transport, world.app)
    dbId = (await call('POST', '/svc/dbs.json', {db: {name: 'Limits', code: 'limits'}})).body.id
  })
  afterAll(async () => {
    await t?.close()
    await world?.close()
  })

  it('answers resync for a bookmark past retention, an unknown one and a malformed one, then goes on live', async () => {
    const feed = await openFeed(t, `/svc/dbs/${dbId}/changes`, auth())
    const doomed = await create({doomed: true})
    await expect.poll(() => changes(feed).length, POLL).toBe(1)
    const bookmark = feed.lastId!
    feed.close()
    expect((await call('DELETE', `/svc/dbs/${dbId}/records/${doomed.id}.json`)).status).toBeLessThan(300)
    // Everything older than now goes (a deleted record keeps no version).
    const pruned = await journalRetention(world.store, {days: 0, minVersions: 1}).runOnce()
    expect(pruned).toBeGreaterThan(0)
    for (const [name, headers] of [
      ['past retention', {'last-event-id': bookmark}],
      ['unknown', {'last-event-id': '9999999999'}],
      ['malformed', {'last-event-id': 'yesterday'}],
    ] as const) {
      const again = await openFeed(t, `/svc/dbs/${dbId}/changes`, {...auth(), ...headers})
      await expect.poll(() => again.events[0]?.event, {...POLL, message: name}).toBe('resync')
      expect(again.events[0]!.data.reason, name).toMatch(/read the data again/)
      expect(changes(again), name).toEqual([])
      const later = await create({after: name})
      await expect.poll(() => changes(again).map((e) => e.data.id), POLL).toEqual([later.id])
      again.close()
    }
  })

  it('refuses a feed past the account\'s quota with a clear 429, and frees the slot when a feed closes', async () => {
    const open = [] as Awaited<ReturnType<typeof openFeed>>[]
    for (let i = 0; i < 3; i++) open.push(await openFeed(t, `/svc/dbs/${dbId}/changes`, auth()))
    expect(open.map((f) => f.status)).toEqual([200, 200, 200])
    await expect.poll(async () => {
      const over = await openFeed(t, `/svc/dbs/${dbId}/changes`, auth('bob'))
      over.close()
      return [over.status, over.error?.error, over.headers.get('retry-after')]
    }, POLL).toEqual([429, expect.stringMatching(/at most 3 at once \(feeds_per_account\)/), expect.stringMatching(/^\d+$/)])
    // Another account has its own quota.
    const otherDb = (await call('POST', '/svc/dbs.json', {db: {name: 'Other', code: 'other-db'}}, 'mallory')).body.id
    const theirs = await openFeed(t, `/svc/dbs/${otherDb}/changes`, auth('mallory'))
    expect(theirs.status).toBe(200)
    theirs.close()
    open.pop()!.close()
    await expect.poll(async () => {
      const next = await openFeed(t, `/svc/dbs/${dbId}/changes`, auth('bob'))
      next.close()
      return next.status
    }, POLL).toBe(200)
    for (const f of open) f.close()
    await expect.poll(() => world.services.feeds.connections.count(`account:${world.accounts.acme}`), POLL).toBe(0)
  })

  it('a HEAD of a feed answers its headers and holds no feed (no quota slot, no subscription)', async () => {
    for (const path of [`/svc/dbs/${dbId}/changes`, '/svc/changes']) {
      for (let i = 0; i < 5; i++) {
        const head = await t.fetch(path, {method: 'HEAD', headers: auth()})
        expect(head.status, path).toBe(200)
        expect(head.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
        expect(head.headers.get('x-content-type-options')).toBe('nosniff')
        await head.body?.cancel()
      }
    }
    const refused = await t.fetch(`/svc/dbs/${dbId}/changes`, {method: 'HEAD', headers: auth('mallory')})
    expect(refused.status).toBe(404)
    expect(world.services.feeds.connections.count(`account:${world.accounts.acme}`)).toBe(0)
    const feed = await openFeed(t, `/svc/dbs/${dbId}/changes`, auth())
    expect(feed.status).toBe(200)
    feed.close()
    await expect.poll(() => world.services.feeds.connections.count(`account:${world.accounts.acme}`), POLL).toBe(0)
  })

  it('drops a client that does not read with resync instead of holding its events', async () => {
    const slow = await openFeed(t, `/svc/dbs/${dbId}/changes`, auth(), {read: false})
    expect(slow.status).toBe(200)
    await expect.poll(() => world.services.feeds.hub.size(), POLL).toBeGreaterThan(0)
    const before = world.services.feeds.hub.size()
    // Far more than the queue (16 KiB) and what the sockets buffer: 2 MiB of events.
    const blob = 'x'.repeat(8 * 1024)
    for (let i = 0; i < 256; i += 16) await Promise.all(Array.from({length: 16}, (_, j) => create({blob, i: i + j})))
    // The slow feed's subscription and its slot are gone; nothing of its events is held.
    await expect.poll(() => world.services.feeds.hub.size(), POLL).toBe(before - 1)
    await expect.poll(() => world.services.feeds.connections.count(`account:${world.accounts.acme}`), POLL).toBe(0)
    // What it reads now: what the server had handed over before the drop, then resync, then the end.
    let text = ''
    const reader = slow.body!.getReader()
    for (;;) {
      const {done, value} = await reader.read()
      if (done) break
      text += new TextDecoder().decode(value)
    }
    expect(text.length).toBeLessThan(2 * 1024 * 1024)
    expect(text.trimEnd().split('\n\n').at(-1)).toMatch(/^event: resync\n(id: \d+\n)?data: .*too slowly/)
  })

  it('ends a feed when its token is revoked or its db deleted', async () => {
    const feed = await openFeed(t, `/svc/dbs/${dbId}/changes`, auth('carol'))
    expect(feed.status).toBe(200)
    expect((await call('POST', `/svc/users/${world.users.carol!.id}/revoke_tokens.json`, {})).status).toBe(200)
    await expect.poll(() => feed.ended, POLL).toBe(true)
    const gone = (await call('POST', '/svc/dbs.json', {db: {name: 'Gone', code: 'gone'}})).body.id
    const onGone = await openFeed(t, `/svc/dbs/${gone}/changes`, auth())
    expect(onGone.status).toBe(200)
    await create({last: true}, gone)
    await expect.poll(() => changes(onGone).length, POLL).toBe(1)
    expect((await call('DELETE', `/svc/dbs/${gone}.json`)).status).toBeLessThan(300)
    await expect.poll(() => onGone.ended, POLL).toBe(true)
  })

  it('the account feed carries the entries the caller may read, in the history entry shape', async () => {
    const feed = await openFeed(t, '/svc/changes', auth())
    const mine = await openFeed(t, '/svc/changes?kind=prompt', auth('mallory'))
    expect([feed.status, mine.status]).toEqual([200, 200])
    const record = await create({seen: 'by all'})
    const secret = await call('POST', '/svc/prompts.json', {prompt: {name: 'Private', code: 'private-one', scope: 'user', content: 'x'}}, 'bob')
    expect(secret.status).toBe(201)
    const shared = await call('POST', '/svc/prompts.json', {prompt: {name: 'Shared', code: 'shared-one', content: 'y'}}, 'bob')
    expect(shared.status).toBe(201)
    await expect.poll(() => feed.events.filter((e) => e.event === 'message').map((e) => `${e.data.kind}:${e.data.id}`), POLL)
      .toEqual(expect.arrayContaining([`record:${record.id}`, `prompt:${shared.body.id}`]))
    const entries = feed.events.filter((e) => e.event === 'message').map((e) => e.data)
    expect(entries.some((e) => e.kind === 'prompt' && e.id === String(secret.body.id))).toBe(false)
    const history = (await call('GET', `/svc/history.json?kind=prompt&id=${shared.body.id}`, undefined, 'alice')).body
    expect(entries.find((e) => e.kind === 'prompt' && e.id === String(shared.body.id))).toEqual(history[0])
    expect(mine.events).toEqual([])
    feed.close()
    mine.close()
  })
})

