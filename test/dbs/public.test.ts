import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {describeBothTransports, makeCall} from '../helpers/scenarios.js'
import {createApp} from '../../src/http/app.js'
import {createServices} from '../../src/services/index.js'
import {pg} from '../helpers/pg.js'
import {createWorld, inProcess, openTransport, TRANSPORTS, type Transport, type World} from '../helpers/world.js'

const guestbook = {
  name: 'Guestbook', code: 'guestbook',
  schema: {fields: {text: 'string', stars: 'integer'}, indexed_fields: ['text']},
  public_methods: {
    list: {scope_by: 'visitor'},
    get: {scope_by: 'visitor'},
    create: {
      allowed_fields: ['text', 'stars', 'visitor'], required_fields: ['text'], default_values: {stars: 3, mood: 'ok'},
      auto_fields: {visitor: '{cookie_key}', ip: '{ip}', uid: '{user_id}', uname: '{user_name}'},
    },
    update: {scope_by: 'visitor', allowed_fields: ['text'], auto_fields: {ip: '{ip}'}},
    delete: {scope_by: 'visitor'},
    search: {scope_by: 'visitor', allowed_params: ['q', 'limit']},
  },
}

/** The `name=value` of the visitor cookie from a response, or undefined. */
function visitorCookie(headers: Headers): string | undefined {
  const raw = headers.get('set-cookie') ?? ''
  const m = /(svc_visitor=[^;]+)/.exec(raw)
  return m?.[1]
}

describeBothTransports('public methods', undefined, (ctx) => {
  let jarA = ''
  let jarB = ''
  let recA = 0
  let recB = 0
  const pub = (method: string, path: string, opts: {cookie?: string; body?: unknown; headers?: Record<string, string>} = {}) =>
    ctx().call(method, `/svc/db/${path}`, {as: null, body: opts.body, headers: {...(opts.cookie ? {cookie: opts.cookie} : {}), ...opts.headers}})

  it('seeds', async () => {
    const c = ctx()
    expect((await c.call('POST', '/svc/dbs.json', {body: {db: guestbook}})).status).toBe(201)
    expect((await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Open', code: 'open', schema: {fields: {n: {type: 'integer', required: true}}}, public_methods: {create: true, list: true, get: true}}}})).status).toBe(201)
    expect((await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Hidden', code: 'hidden'}}})).status).toBe(201)
  })

  it('unknown db, a method not enabled, an unknown method: 404 {error}', async () => {
    for (const path of ['nope/list', 'hidden/list', 'open/delete', 'open/drop', 'open/search']) {
      const r = await pub('GET', path)
      expect(r.status, path).toBe(404)
      expect(r.json, path).toEqual({error: expect.any(String)})
    }
  })

  it('create: a signed HttpOnly visitor cookie for a month; auto fields overwrite; allowed fields filter; defaults', async () => {
    const r = await pub('POST', 'guestbook/create', {body: {data: {text: 'hello from A', visitor: 'forged', ip: '6.6.6.6', secret: 'dropped'}}})
    expect(r.status, r.text).toBe(201)
    const setCookie = r.headers.get('set-cookie') ?? ''
    expect(setCookie).toMatch(/HttpOnly/i)
    expect(setCookie).toMatch(/Max-Age=2592000/)
    jarA = visitorCookie(r.headers)!
    expect(jarA).toBeTruthy()
    const key = decodeURIComponent(jarA.split('=').slice(1).join('=')).split('.')[0]
    expect(r.json).toEqual({id: expect.any(Number), created_at: expect.any(String), updated_at: expect.any(String),
      data: {text: 'hello from A', stars: 3, mood: 'ok', visitor: key, ip: '127.0.0.1', uid: '', uname: ''}})
    expect(Object.keys(r.json).sort()).toEqual(['created_at', 'data', 'id', 'updated_at'])
    recA = r.json.id
    const again = await pub('POST', 'guestbook/create', {cookie: jarA, body: {data: {text: 'second from A', stars: '5'}}})
    expect(again.json.data).toMatchObject({visitor: key, stars: 5})
    expect(visitorCookie(again.headers)).toBeUndefined() // a valid cookie is kept
    const b = await pub('GET', 'guestbook/create?data[text]=hello%20from%20B')
    expect(b.status).toBe(201)
    jarB = visitorCookie(b.headers)!
    recB = b.json.id
    expect(jarB).not.toBe(jarA)
  })

  it('two cookie jars never see each other\'s records (list, get, search, update, delete)', async () => {
    const listA = await pub('GET', 'guestbook/list', {cookie: jarA})
    expect(listA.json.map((x: any) => x.data.text)).toEqual(['second from A', 'hello from A'])
    const listB = await pub('GET', 'guestbook/list', {cookie: jarB})
    expect(listB.json.map((x: any) => x.data.text)).toEqual(['hello from B'])
    expect((await pub('GET', `guestbook/get?id=${recB}`, {cookie: jarA})).status).toBe(404)
    expect((await pub('GET', `guestbook/get?id=${recB}`, {cookie: jarB})).json).toMatchObject({id: recB, data: {text: 'hello from B'}})
    expect((await pub('GET', 'guestbook/search?q=hello', {cookie: jarA})).json.map((x: any) => x.id)).toEqual([recA])
    const upd = await pub('POST', 'guestbook/update', {cookie: jarA, body: {id: recB, data: {text: 'hijacked'}}})
    expect(upd.status).toBe(404)
    expect(upd.json).toEqual({error: 'record not found'})
    expect((await pub('POST', 'guestbook/delete', {cookie: jarA, body: {id: recB}})).status).toBe(404)
    expect((await pub('GET', `guestbook/get?id=${recB}`, {cookie: jarB})).json.data.text).toBe('hello from B')
    expect((await pub('GET', 'guestbook/get?id=999999', {cookie: jarA})).json).toEqual({error: 'record not found'})
  })

  it('a tampered or forged cookie is a new visitor', async () => {
    const [name, value] = [jarA.split('=')[0], decodeURIComponent(jarA.slice(jarA.indexOf('=') + 1))]
    const [key, sig] = [value.slice(0, value.lastIndexOf('.')), value.slice(value.lastIndexOf('.') + 1)]
    const altered = `${name}=${encodeURIComponent(`${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}.${sig}`)}`
    const forged = `${name}=${encodeURIComponent(`${key}.${'A'.repeat(sig.length)}`)}`
    for (const cookie of [altered, forged, `${name}=${key}`]) {
      const r = await pub('GET', 'guestbook/list', {cookie})
      expect(r.status).toBe(200)
      expect(r.json).toEqual([])
      expect(visitorCookie(r.headers)).toBeTruthy()
    }
  })

  it('update and delete in scope; update answers the record, delete {id, deleted: true}', async () => {
    const u = await pub('POST', 'guestbook/update', {cookie: jarA, body: {id: recA, data: {text: 'edited', visitor: 'steal', stars: 1}}})
    expect(u.status, u.text).toBe(200)
    expect(u.json).toMatchObject({id: recA, data: {text: 'edited', stars: 3, mood: 'ok'}})
    expect(u.json.data.visitor).not.toBe('steal')
    const d = await pub('POST', 'guestbook/delete', {cookie: jarA, body: {id: recA}})
    expect(d.json).toEqual({id: recA, deleted: true})
    expect((await pub('GET', `guestbook/get?id=${recA}`, {cookie: jarA})).status).toBe(404)
  })

  it('missing required field: 422 {error, fields}', async () => {
    const r = await pub('POST', 'guestbook/create', {cookie: jarA, body: {data: {stars: 2}}})
    expect(r.status).toBe(422)
    expect(r.json).toEqual({error: expect.any(String), fields: {text: ['is required']}})
    const t = await pub('POST', 'open/create', {body: {data: {n: 'many'}}})
    expect(t.status).toBe(422)
    expect(t.json).toEqual({error: expect.any(String), fields: {n: ['must be an integer']}})
    expect((await pub('POST', 'open/create', {body: {data: {}}})).json).toEqual({error: expect.any(String), fields: {n: ['is required']}})
    expect((await pub('POST', 'open/create', {body: {data: 'x'}})).status).toBe(422)
    expect((await pub('POST', 'open/create', {body: {data: {n: '12'}}})).json.data).toEqual({n: 12})
  })

  // Issue 25 item 5: `{"title": "x"}` (the record's fields at the top level) answered 201 and stored an empty record.
  it('create and update without `data`: 422 naming `data` and the keys not expected; nothing stored or changed', async () => {
    const c = ctx()
    const count = async () => (await c.call('GET', '/svc/dbs/open.json')).json.records_count
    const before = await count()
    const r = await pub('POST', 'open/create', {body: {n: 5, title: 'x'}})
    expect(r.status, r.text).toBe(422)
    expect(r.json.fields).toEqual({data: ['is required'], n: ['is not a parameter of create (fields go inside "data")'],
      title: ['is not a parameter of create (fields go inside "data")']})
    expect(r.json.error).toMatch(/"data" is required.*n, title/)
    for (const call of [() => pub('POST', 'open/create', {body: {}}), () => pub('GET', 'open/create'), () => pub('GET', 'open/create?n=5')]) {
      const e = await call()
      expect(e.status, e.text).toBe(422)
      expect(e.json.fields.data).toEqual(['is required'])
    }
    expect(await count()).toBe(before)
    // The same record in `data` (body, query JSON or data[field] keys) is created.
    expect((await pub('POST', 'open/create', {body: {data: {n: 5}}})).status).toBe(201)
    expect((await pub('GET', `open/create?data=${encodeURIComponent('{"n": 6}')}`)).status).toBe(201)
    expect((await pub('GET', 'open/create?data[n]=7')).status).toBe(201)
    expect(await count()).toBe(before + 3)

    const created = await pub('POST', 'guestbook/create', {body: {data: {text: 'to update'}}})
    const jar = visitorCookie(created.headers)!
    const u = await pub('POST', 'guestbook/update', {cookie: jar, body: {id: created.json.id, text: 'changed'}})
    expect(u.status, u.text).toBe(422)
    expect(u.json.fields).toEqual({data: ['is required'], text: ['is not a parameter of update (fields go inside "data")']})
    expect((await pub('GET', `guestbook/get?id=${created.json.id}`, {cookie: jar})).json.data.text).toBe('to update')
    const ok = await pub('POST', 'guestbook/update', {cookie: jar, body: {id: created.json.id, data: {text: 'changed'}}})
    expect(ok.status, ok.text).toBe(200)
    expect(ok.json.data.text).toBe('changed')
  })

  it('{user_id} and {user_name} come from the session cookie, else empty', async () => {
    const c = ctx()
    const session = await c.world.store.accounts.createToken(c.world.users.alice!.id, 'session', 3600)
    const r = await pub('POST', 'guestbook/create', {cookie: `svc_session=${session}; ${jarB}`, headers: {'sec-fetch-site': 'same-origin'}, body: {data: {text: 'signed in', uid: '1'}}})
    expect(r.status, r.text).toBe(201)
    expect(r.json.data).toMatchObject({uid: String(c.world.users.alice!.id), uname: 'alice'})
    const mallory = await c.world.store.accounts.createToken(c.world.users.mallory!.id, 'session', 3600)
    const other = await pub('GET', 'guestbook/create?data[text]=x', {cookie: `svc_session=${mallory}; ${jarB}`})
    expect(other.json.data).toMatchObject({uid: '', uname: ''}) // a user of another account is nobody here
  })

  it('public list/get/search see every table mixed; create stores table_name null', async () => {
    const c = ctx()
    await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Multi', code: 'multi', schema: {tables: {a: {fields: {x: {type: 'integer', required: true}}}}}, public_methods: {create: true, list: true, search: true}}}})
    await c.call('POST', '/svc/dbs/multi/records.json', {body: {record: {table_name: 'a', data: {x: 1}}}})
    const r = await pub('POST', 'multi/create', {body: {data: {x: 'not checked'}}})
    expect(r.status).toBe(201)
    const stored = await c.call('GET', `/svc/dbs/multi/records/${r.json.id}.json`)
    expect(stored.json.table_name).toBeNull()
    expect((await pub('GET', 'multi/list')).json).toHaveLength(2)
    expect((await pub('GET', 'multi/search')).status).toBe(400)
    expect((await pub('GET', 'multi/search')).json.available_tables).toEqual(['a'])
    expect((await pub('GET', 'multi/search?table_name=a')).json).toHaveLength(1)
  })
})

describe('public writes: rate limit and {ip}', () => {
  for (const name of TRANSPORTS) {
    describe(name, () => {
      let world: World
      let transport: Transport
      beforeAll(async () => {
        world = await createWorld(undefined, {dbPublicWrites: {limit: 3, windowSeconds: 60}, trustProxy: true})
        transport = await openTransport(name, world.app)
        const call = makeCall(world, transport)
        await call('POST', '/svc/dbs.json', {body: {db: {name: 'L', code: 'l', public_methods: {create: {auto_fields: {ip: '{ip}'}}, list: true}}}})
      })
      afterAll(async () => {
        await transport.close()
        await world.close()
      })
      it('429 after the limit per visitor address; X-Forwarded-For counts with trustProxy; reads are not limited', async () => {
        const call = makeCall(world, transport)
        const create = (ip: string) => call('POST', '/svc/db/l/create', {as: null, body: {data: {}}, headers: {'x-forwarded-for': `6.6.6.6, ${ip}`}})
        for (let i = 0; i < 3; i++) {
          const r = await create('203.0.113.7')
          expect(r.status).toBe(201)
          expect(r.json.data.ip).toBe('203.0.113.7')
        }
        const limited = await create('203.0.113.7')
        expect(limited.status).toBe(429)
        expect(limited.json).toEqual({error: expect.stringContaining('too many')})
        expect((await create('198.51.100.1')).status).toBe(201)
        expect((await call('GET', '/svc/db/l/list', {as: null, headers: {'x-forwarded-for': '203.0.113.7'}})).status).toBe(200)
      })
    })
  }
})

describe('{ip} without trustProxy ignores X-Forwarded-For', () => {
  it('uses the peer address', async () => {
    const world = await createWorld()
    try {
      for (const name of TRANSPORTS) {
        const transport = await openTransport(name, world.app)
        const call = makeCall(world, transport)
        await call('POST', '/svc/dbs.json', {body: {db: {name: 'L', code: `ip-${name}`, public_methods: {create: {auto_fields: {ip: '{ip}'}}}}}})
        const r = await call('POST', `/svc/db/ip-${name}/create`, {as: null, body: {data: {}}, headers: {'x-forwarded-for': '6.6.6.6'}})
        expect(r.json.data.ip).toBe('127.0.0.1')
        await transport.close()
      }
    } finally {
      await world.close()
    }
  })
})

describe.runIf(pg)('public writes: the limit is one across instances over one PostgreSQL database', () => {
  it('writes through two instances count against the same visitor address', async () => {
    const world = await createWorld(undefined, {dbPublicWrites: {limit: 3, windowSeconds: 60}, trustProxy: true})
    const second = await world.reopen()
    try {
      const other = createApp({...world.deps, store: second, services: createServices(second)})
      const call = makeCall(world, inProcess(world.app))
      const callOther = makeCall(world, inProcess(other))
      await call('POST', '/svc/dbs.json', {body: {db: {name: 'L', code: 'l', public_methods: {create: true}}}})
      const create = (via: typeof call) => via('POST', '/svc/db/l/create', {as: null, body: {data: {}}, headers: {'x-forwarded-for': '203.0.113.9'}})
      expect((await create(call)).status).toBe(201)
      expect((await create(callOther)).status).toBe(201)
      expect((await create(call)).status).toBe(201)
      expect((await create(callOther)).status).toBe(429)
      expect((await create(call)).status).toBe(429)
    } finally {
      await second.close()
      await world.close()
    }
  })
})
