import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svcServe, type ServeProcess} from '../helpers/cli.js'
import {createWorld, type World} from '../helpers/world.js'

/** Issue 39, "Logs a self-hoster can use": `svc serve --log-format json` and `X-Request-Id`. */
describe('svc serve logs: --log-format json, X-Request-Id on every answer', () => {
  let world: World
  let server: ServeProcess
  let human: ServeProcess
  let stdout = ''
  let token = ''
  const dbArgs = () => (world.databaseUrl ? ['--database-url', world.databaseUrl] : [])

  beforeAll(async () => {
    world = await createWorld()
    token = world.users.admin!.token
    server = await svcServe(world.dataDir, ['--log-format', 'json', ...dbArgs()])
    server.child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
    human = await svcServe(world.dataDir, dbArgs())
  }, 180_000)
  afterAll(async () => {
    await server?.stop()
    await human?.stop()
    await world?.close()
  })

  const call = (base: string, path: string, init: {method?: string; headers?: Record<string, string>; body?: unknown} = {}) =>
    fetch(base + path, {
      method: init.method ?? 'GET',
      headers: {...(init.body === undefined ? {} : {'content-type': 'application/json'}), ...init.headers},
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    })
  /** The JSON request lines logged so far with this id (each line is one whole JSON object). */
  const entriesOf = async (id: string) => {
    for (let i = 0; i < 2400; i++) { // up to a minute: a loaded machine
      // Whole lines only: a line can arrive in two pieces (a pipe the test process has not emptied yet).
      const lines = stdout.slice(0, stdout.lastIndexOf('\n') + 1).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)
      const found = lines.filter((l) => l.type === 'request' && l.request_id === id)
      if (found.length) return found
      await new Promise((r) => setTimeout(r, 25))
    }
    throw new Error(`no log line for ${id} in:\n${stdout}`)
  }

  it('one JSON line per request with time, id, account, user, method, route, status, duration and bytes; never the token', async () => {
    const res = await call(server.url, '/svc/prompts.json?q=secret-query', {headers: {authorization: `Bearer ${token}`}})
    expect(res.status).toBe(200)
    const body = await res.text()
    const id = res.headers.get('x-request-id')!
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    const [entry] = await entriesOf(id)
    expect(entry).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), type: 'request', request_id: id,
      account_id: world.accounts.acme, user_id: world.users.admin!.id, user: 'admin', visitor: null,
      method: 'GET', route: '/svc/prompts.json', status: 200, duration_ms: expect.any(Number), bytes: Buffer.byteLength(body),
    })
    expect(stdout).not.toContain(token)
    expect(stdout).not.toContain('secret-query')
  })

  it('a sane incoming X-Request-Id is kept; a bad or overlong one is replaced; errors carry it in the header, not the body', async () => {
    let res = await call(server.url, '/svc/prompts/nope.json', {headers: {'x-request-id': 'proxy-abc=123'}})
    expect(res.status).toBe(401)
    expect(res.headers.get('x-request-id')).toBe('proxy-abc=123')
    expect(await res.json()).toEqual({error: expect.any(String)})
    const [unauth] = await entriesOf('proxy-abc=123')
    expect(unauth).toMatchObject({route: '/svc/prompts/{id}.json', status: 401, user: null, account_id: null})

    for (const bad of ['has space', 'x'.repeat(129), 'a"b']) {
      res = await call(server.url, '/svc/me.json', {headers: {'x-request-id': bad, authorization: `Bearer ${token}`}})
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    }
    // A 404 of an unknown path, a 422 and a 413: the id on each, the spec's bodies unchanged.
    res = await call(server.url, '/no/such/path')
    expect(res.status).toBe(404)
    const notFoundId = res.headers.get('x-request-id')!
    expect(notFoundId).toBeTruthy()
    expect(await res.json()).toEqual({error: 'not found'})
    expect((await entriesOf(notFoundId))[0]).toMatchObject({route: null, status: 404})
    res = await call(server.url, '/svc/dbs.json', {method: 'POST', headers: {authorization: `Bearer ${token}`}, body: {db: {}}})
    expect(res.status).toBe(422)
    expect(res.headers.get('x-request-id')).toBeTruthy()
    expect(Object.keys(await res.json())).not.toContain('request_id')
    res = await call(server.url, '/svc/dbs.json', {method: 'POST', headers: {authorization: `Bearer ${token}`}, body: {db: {name: 'x'.repeat(6 * 1024 * 1024)}}})
    expect(res.status).toBe(413)
    expect(res.headers.get('x-request-id')).toBeTruthy()
  })

  it('headers over the server\'s limit: a 431 with the API\'s JSON error body (the document gives it one) and an id', async () => {
    const res = await call(server.url, '/svc/me.json', {headers: {'x-pad': 'a'.repeat(20_000)}})
    expect(res.status).toBe(431)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(await res.json()).toEqual({error: 'request headers too large'})
  })

  it('a public method called by a visitor logs the db\'s account and a digest of the visitor, never its cookie', async () => {
    let res = await call(server.url, '/svc/dbs.json', {method: 'POST', headers: {authorization: `Bearer ${token}`}, body: {db: {
      name: 'Guestbook', code: 'guestbook', schema: {fields: {text: 'string'}},
      public_methods: {create: {allowed_fields: ['text'], auto_fields: {visitor: '{cookie_key}'}}},
    }}})
    expect(res.status).toBe(201)
    res = await call(server.url, '/svc/db/guestbook/create', {method: 'POST', body: {data: {text: 'hi'}}})
    expect(res.status).toBe(201)
    const cookie = /svc_visitor=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!
    const [entry] = await entriesOf(res.headers.get('x-request-id')!)
    expect(entry).toMatchObject({account_id: world.accounts.acme, user: null, user_id: null, visitor: expect.stringMatching(/^[0-9a-f]{12}$/),
      method: 'POST', route: '/svc/db/{db_code}/{method_name}', status: 201})
    expect(stdout).not.toContain(decodeURIComponent(cookie).split('.')[0])
  })

  it('the human format stays the default: access lines on stderr, no JSON on stdout; the id is on its answers too', async () => {
    const res = await call(human.url, '/svc/me.json', {headers: {authorization: `Bearer ${token}`}})
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    for (let i = 0; i < 2400 && !/GET \/svc\/me\.json 200 /.test(human.output()); i++) await new Promise((r) => setTimeout(r, 25))
    expect(human.output()).toMatch(/GET \/svc\/me\.json 200 [\d.]+ms/)
    expect(human.output()).not.toContain('"type":"request"')
  })
})
