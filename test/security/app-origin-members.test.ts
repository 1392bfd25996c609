// Issue 37 (the shared list): on an app's origin its signed-in members reach the private records API
// and the private feed of the db the app declares — and nothing else: the same paths and the same
// permission as on the main origin (docs/security.md "Apps on their own origin"). Another db (by id or
// code), another app's sign-in, no sign-in, a bearer token, a read-only sign-in's writes and a
// cross-site request are refused; a write made there is journaled with the member as actor, door
// `public`. Both transports, both stores.
import {request} from 'node:http'
import {Readable} from 'node:stream'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {READ_ONLY_TOKEN} from '../../src/store/accounts/types.js'
import {openApp} from '../helpers/app-origin.js'
import {makeCall} from '../helpers/scenarios.js'
import {createWorld, openTransport, TRANSPORTS, type Seed, type Transport, type World} from '../helpers/world.js'
import {changes, openFeed, type Feed, type RawTransport} from '../feeds/feed-client.js'

const SEED: Seed = {
  accounts: ['acme', 'other'],
  users: [
    {login: 'admin', role: 'admin'},
    {login: 'alice', role: 'user'},
    {login: 'gus', role: 'guest'},
    {login: 'mallory', account: 'other', role: 'admin'},
  ],
}
const SAME_ORIGIN = {'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty'}
const JSON_TYPE = {'content-type': 'application/json'}
const POLL = {timeout: 30_000, interval: 50}

/** An event stream of any origin of the server (an app's `*.localhost` included), over either transport. */
function streams(world: World, transport: Transport): RawTransport {
  if (transport.name === 'in-process') return {name: 'in-process', fetch: async (url, init) => world.app.request(url, init), close: async () => {}}
  const server = new URL(transport.origin)
  return {
    name: 'http',
    close: async () => {},
    // Node's fetch neither resolves `*.localhost` nor sends a Host header of its own: a plain request, streamed.
    fetch: (url, init = {}) => new Promise((resolve, reject) => {
      const target = new URL(url)
      const headers: Record<string, string> = {}
      new Headers(init.headers).forEach((v, k) => (headers[k] = v))
      headers.host = target.host
      const req = request({host: server.hostname, port: server.port, method: init.method ?? 'GET', path: target.pathname + target.search, headers}, (res) => {
        const out = new Headers()
        for (const [k, v] of Object.entries(res.headers)) for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.append(k, one)
        resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, {status: res.statusCode ?? 500, headers: out}))
      })
      init.signal?.addEventListener('abort', () => req.destroy())
      req.on('error', reject)
      req.end()
    }),
  }
}

describe.each(TRANSPORTS)('members of an app on its origin: the app\'s db through the private records API (%s)', (name) => {
  let world: World
  let transport: Transport
  let call: ReturnType<typeof makeCall>
  let raw: RawTransport
  let teamId = 0
  let otherId = 0
  let appId = ''
  const cookies: Record<string, string> = {}
  const feeds: Feed[] = []
  const origin = (label: string) => {
    const port = new URL(transport.origin).port
    return `http://${label}.localhost${port ? `:${port}` : ''}`
  }
  /** A request on an app's origin, as its own page makes it (same-origin fetch), with a sign-in's cookie. */
  const on = async (label: string, method: string, path: string, options: {cookie?: string; body?: unknown; headers?: Record<string, string>} = {}) => {
    const headers: Record<string, string> = {...SAME_ORIGIN, ...(options.body === undefined ? {} : JSON_TYPE), ...options.headers}
    if (options.cookie) headers.cookie = options.cookie
    const res = await transport.fetch(`${origin(label)}${path}`, {method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), redirect: 'manual'})
    const text = await res.text()
    let json: any
    try {
      json = text ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    return {status: res.status, json, text}
  }
  const team = (method: string, path: string, options: Parameters<typeof on>[3] = {}) => on('team-app', method, path, options)
  const feedOn = async (label: string, path: string, headers: Record<string, string> = {}) => {
    const feed = await openFeed(raw, `${origin(label)}${path}`, {...SAME_ORIGIN, accept: 'text/event-stream', ...headers})
    feeds.push(feed)
    return feed
  }

  beforeAll(async () => {
    world = await createWorld(SEED, {feeds: {heartbeatMs: 100, pollMs: 100, recheckMs: 200}})
    transport = await openTransport(name, world.app)
    call = makeCall(world, transport)
    raw = streams(world, transport)
    const db = async (code: string) => {
      const made = await call('POST', '/svc/dbs.json', {body: {db: {name: code, code, schema: {fields: {text: {type: 'string', required: true}, done: 'boolean'}}}}})
      expect(made.status, made.text).toBe(201)
      return made.json.id as number
    }
    teamId = await db('team')
    otherId = await db('secrets')
    expect((await call('POST', `/svc/dbs/${otherId}/records.json`, {body: {record: {data: {text: 'not for the app'}}}})).status).toBe(201)
    for (const [url_code, db_code] of [['team-app', 'team'], ['secrets-app', 'secrets']]) {
      const app = await call('POST', '/svc/apps.json', {body: {app: {name: url_code, url_code, app_engine: 'html', css_engine: 'none', public: false, db_code,
        source_code: '<p>hi</p>'}}})
      expect(app.status, app.text).toBe(201)
      if (url_code === 'team-app') appId = app.json.id
    }
    // One app sign-in each, as a browser gets it from `/a/:key` (the hand-over).
    const signIn = async (path: string, headers: Record<string, string>) => {
      const opened = await openApp(transport, path, headers)
      expect(opened.res.status, opened.html.slice(0, 200)).toBe(200)
      expect(opened.cookie).toMatch(/svc_app_session=/)
      return opened.cookie
    }
    for (const login of ['admin', 'alice', 'gus']) cookies[login] = await signIn('/a/team-app', {authorization: `Bearer ${world.users[login]!.token}`})
    cookies.secretsApp = await signIn('/a/secrets-app', {authorization: `Bearer ${world.users.alice!.token}`})
    const reader = await world.store.accounts.createToken(world.users.alice!.id, READ_ONLY_TOKEN)
    cookies.reader = await signIn('/a/team-app', {authorization: `Bearer ${reader}`})
  }, 60_000)
  afterAll(async () => {
    for (const f of feeds) f.close()
    await transport?.close()
    await world?.close()
  })

  it('a member lists, creates, reads, searches, updates and deletes the app\'s db records, by code or by id, as on the main origin', async () => {
    const made = await team('POST', '/svc/dbs/team/records.json', {cookie: cookies.alice, body: {record: {data: {text: 'milk', done: false}}}})
    expect(made.status, made.text).toBe(201)
    const id = made.json.id as number
    // The main origin's records API sees the same record, and a member on the app origin sees the admin's.
    const byAdmin = await call('POST', `/svc/dbs/${teamId}/records.json`, {body: {record: {data: {text: 'bread', done: false}}}})
    expect(byAdmin.status).toBe(201)
    for (const key of ['team', String(teamId)]) {
      const list = await team('GET', `/svc/dbs/${key}/records.json?limit=100`, {cookie: cookies.alice})
      expect(list.status, list.text).toBe(200)
      expect(list.json.map((r: {data: {text: string}}) => r.data.text).sort()).toEqual(['bread', 'milk'])
    }
    expect((await team('GET', `/svc/dbs/team/records/${byAdmin.json.id}.json`, {cookie: cookies.alice})).json.data.text).toBe('bread')
    const found = await team('GET', '/svc/dbs/team/search.json?filter[text]=milk', {cookie: cookies.alice})
    expect(found.status, found.text).toBe(200)
    expect(found.json.map((r: {id: number}) => r.id)).toEqual([id])
    const ticked = await team('PATCH', `/svc/dbs/${teamId}/records/${byAdmin.json.id}.json`, {cookie: cookies.alice, body: {record: {data: {done: true}}}})
    expect(ticked.status, ticked.text).toBe(200)
    expect(ticked.json.data).toEqual({text: 'bread', done: true})
    expect((await team('DELETE', `/svc/dbs/team/records/${id}.json`, {cookie: cookies.alice})).status).toBe(204)
    const left = await call('GET', `/svc/dbs/${teamId}/records.json`)
    expect(left.json.map((r: {data: {text: string}}) => r.data.text)).toEqual(['bread'])
  })

  it('the journal has the member as actor, door public (the app origins\' door)', async () => {
    const made = await team('POST', '/svc/dbs/team/records.json', {cookie: cookies.alice, body: {record: {data: {text: 'journaled'}}}})
    expect(made.status).toBe(201)
    const history = await call('GET', `/svc/history.json?kind=record&db=${teamId}&limit=1`)
    expect(history.status, history.text).toBe(200)
    expect(history.json[0]).toMatchObject({kind: 'record', id: String(made.json.id), op: 'create', door: 'public', client: null,
      actor: {type: 'user', id: String(world.users.alice!.id), name: 'alice'}})
  })

  it('the permission is the records API\'s: a guest member reads and may not write', async () => {
    expect((await team('GET', '/svc/dbs/team/records.json', {cookie: cookies.gus})).status).toBe(200)
    const write = await team('POST', '/svc/dbs/team/records.json', {cookie: cookies.gus, body: {record: {data: {text: 'guest'}}}})
    expect(write.status, write.text).toBe(403)
  })

  it('only the app\'s own db, and only its records routes: another db by id or code, the db itself, import, the db list are 404', async () => {
    for (const path of [`/svc/dbs/${otherId}/records.json`, '/svc/dbs/secrets/records.json', '/svc/dbs/secrets/search.json', `/svc/dbs/${otherId}/records/1.json`,
      '/svc/dbs/secrets/changes', '/svc/dbs/nope/records.json', '/svc/dbs/99999999/records.json', `/svc/dbs/${teamId}.json`, '/svc/dbs/team.json',
      '/svc/dbs.json', '/svc/dbs/team/usage.json', '/svc/history.json', '/svc/changes',
      '/svc/dbs/secr%65ts/records.json', '/svc/dbs/team%2Fx/records.json', '/svc/dbs/%E0%A4%A/records.json', '/svc/dbs/%2e%2e/records.json']) {
      // Signed in or not: a route the origin does not answer (never a 401 that would tell the db is there).
      for (const cookie of [cookies.admin, undefined]) {
        const r = await team('GET', path, {cookie})
        expect(r.status, `${path}: ${r.text}`).toBe(404)
        expect(r.json).toEqual({error: 'not found'})
      }
    }
    // The app's db named with an escaped character is the app's db (as the main routes decode it).
    expect((await team('GET', '/svc/dbs/te%61m/records.json', {cookie: cookies.admin})).status).toBe(200)
    const imported = await team('POST', '/svc/dbs/team/import.json', {cookie: cookies.admin, body: {records: [{data: {text: 'x'}}]}})
    expect(imported.status).toBe(404)
    const wrongDb = await team('POST', '/svc/dbs/secrets/records.json', {cookie: cookies.admin, body: {record: {data: {text: 'x'}}}})
    expect(wrongDb.status).toBe(404)
    expect((await team('DELETE', `/svc/dbs/${teamId}`, {cookie: cookies.admin})).status).toBe(404)
    // And on the other app's origin its own db answers, never this one.
    expect((await on('secrets-app', 'GET', '/svc/dbs/team/records.json', {cookie: cookies.secretsApp})).status).toBe(404)
    expect((await on('secrets-app', 'GET', '/svc/dbs/secrets/records.json', {cookie: cookies.secretsApp})).status).toBe(200)
  })

  it('no sign-in, another app\'s sign-in, a bearer token or the console session: 401, nothing read or written', async () => {
    const bearer = {authorization: `Bearer ${world.users.admin!.token}`}
    for (const [who, options] of [
      ['nobody', {}],
      ['another app\'s sign-in', {cookie: cookies.secretsApp}],
      ['a forged sign-in', {cookie: 'svc_app_session=forged'}],
      ['a bearer token', {headers: bearer}],
      ['the console session', {cookie: `svc_session=${world.users.admin!.token}`}],
    ] as const) {
      for (const [method, path, body] of [['GET', '/svc/dbs/team/records.json'], ['GET', '/svc/dbs/team/changes'], ['GET', '/svc/dbs/team/search.json'],
        ['POST', '/svc/dbs/team/records.json', {record: {data: {text: 'intruder'}}}], ['DELETE', '/svc/dbs/team/records/1.json']] as const) {
        const r = await team(method, path, {...options, body})
        expect(r.status, `${who} ${method} ${path}: ${r.text}`).toBe(401)
      }
    }
    const all = await call('GET', `/svc/dbs/${teamId}/records.json?limit=100`)
    expect(all.json.some((r: {data: {text: string}}) => r.data.text === 'intruder')).toBe(false)
  })

  it('a read-only sign-in reads, and its writes are 403 read-only; nothing is written', async () => {
    expect((await team('GET', '/svc/dbs/team/records.json', {cookie: cookies.reader})).status).toBe(200)
    const target = (await call('GET', `/svc/dbs/${teamId}/records.json`)).json[0].id
    for (const [method, path, body] of [['POST', '/svc/dbs/team/records.json', {record: {data: {text: 'read-only'}}}],
      ['PATCH', `/svc/dbs/team/records/${target}.json`, {record: {data: {text: 'changed'}}}], ['DELETE', `/svc/dbs/team/records/${target}.json`]] as const) {
      const r = await team(method, path, {cookie: cookies.reader, body})
      expect(r.status, `${method} ${path}`).toBe(403)
      expect(r.json).toEqual({error: 'read-only: this token may not change anything'})
    }
    const record = await call('GET', `/svc/dbs/${teamId}/records/${target}.json`)
    expect(record.status).toBe(200)
    expect(record.json.data.text).not.toBe('changed')
    const feed = await feedOn('team-app', '/svc/dbs/team/changes', {cookie: cookies.reader})
    expect(feed.status).toBe(200)
    feed.close()
  })

  it('cross-site: another site\'s or a sibling app\'s request is served without the cookie; a navigation or another Origin never writes', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const read = await team('GET', '/svc/dbs/team/records.json', {cookie: cookies.alice, headers: {'sec-fetch-site': site}})
      expect(read.status, site).toBe(401)
      const feed = await feedOn('team-app', '/svc/dbs/team/changes', {cookie: cookies.alice, 'sec-fetch-site': site})
      expect(feed.status, site).toBe(401)
      const write = await team('POST', '/svc/dbs/team/records.json', {cookie: cookies.alice, headers: {'sec-fetch-site': site}, body: {record: {data: {text: 'csrf'}}}})
      expect(write.status, site).toBe(403)
    }
    // A form of the app's own page posting by navigation, and a request naming another Origin.
    const navigation = await team('POST', '/svc/dbs/team/records.json', {cookie: cookies.alice, headers: {'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document'},
      body: {record: {data: {text: 'csrf'}}}})
    expect(navigation.status).toBe(403)
    const otherOrigin = await team('DELETE', '/svc/dbs/team/records/1.json', {cookie: cookies.alice, headers: {'sec-fetch-site': '', origin: 'https://evil.example'}})
    expect(otherOrigin.status).toBe(403)
    const all = await call('GET', `/svc/dbs/${teamId}/records.json?limit=100`)
    expect(all.json.some((r: {data: {text: string}}) => r.data.text === 'csrf')).toBe(false)
  })

  it('the private feed on the app origin: a member sees every member\'s changes live; another app\'s sign-in or none gets nothing', async () => {
    const alice = await feedOn('team-app', '/svc/dbs/team/changes', {cookie: cookies.alice})
    expect(alice.status, JSON.stringify(alice.error)).toBe(200)
    expect(alice.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const byId = await feedOn('team-app', `/svc/dbs/${teamId}/changes`, {cookie: cookies.admin})
    expect(byId.status).toBe(200)
    for (const [label, cookie] of [['team-app', undefined], ['team-app', cookies.secretsApp], ['secrets-app', cookies.secretsApp]] as const) {
      const refused = await feedOn(label, label === 'team-app' ? '/svc/dbs/team/changes' : `/svc/dbs/${teamId}/changes`, cookie ? {cookie} : {})
      expect(refused.status).toBe(label === 'team-app' ? 401 : 404)
    }
    await expect.poll(() => alice.comments, POLL).toBeGreaterThan(0)
    const made = await team('POST', '/svc/dbs/team/records.json', {cookie: cookies.admin, body: {record: {data: {text: 'eggs'}}}})
    expect(made.status).toBe(201)
    await team('PATCH', `/svc/dbs/team/records/${made.json.id}.json`, {cookie: cookies.alice, body: {record: {data: {done: true}}}})
    // Another db's change never reaches it.
    await call('POST', `/svc/dbs/${otherId}/records.json`, {body: {record: {data: {text: 'other db'}}}})
    await team('DELETE', `/svc/dbs/team/records/${made.json.id}.json`, {cookie: cookies.admin})
    for (const feed of [alice, byId]) {
      await expect.poll(() => changes(feed).map((e) => e.event), POLL).toEqual(['create', 'update', 'delete'])
      expect(changes(feed)[0]!.data).toMatchObject({id: made.json.id, data: {text: 'eggs'}})
      expect(changes(feed)[1]!.data.data).toEqual({text: 'eggs', done: true})
      expect(JSON.stringify(feed.events)).not.toContain('other db')
    }
  })

  it('a change of the app ends its members\' feeds (the browser reconnects and the origin checks again); a revoked sign-in ends them too', async () => {
    const feed = await feedOn('team-app', '/svc/dbs/team/changes', {cookie: cookies.admin})
    expect(feed.status).toBe(200)
    await expect.poll(() => feed.comments, POLL).toBeGreaterThan(0)
    expect((await call('PATCH', `/svc/apps/${appId}.json`, {body: {app: {db_code: 'secrets'}}})).status).toBe(200)
    await expect.poll(() => feed.ended, POLL).toBe(true)
    // The app now declares the other db: the team db no longer answers there.
    expect((await team('GET', '/svc/dbs/team/records.json', {cookie: cookies.admin})).status).toBe(404)
    expect((await team('GET', '/svc/dbs/secrets/records.json', {cookie: cookies.admin})).status).toBe(200)
    expect((await call('PATCH', `/svc/apps/${appId}.json`, {body: {app: {db_code: 'team'}}})).status).toBe(200)
    const again = await feedOn('team-app', '/svc/dbs/team/changes', {cookie: cookies.alice})
    expect(again.status).toBe(200)
    await expect.poll(() => again.comments, POLL).toBeGreaterThan(0)
    expect((await call('POST', `/svc/users/${world.users.alice!.id}/revoke_tokens.json`)).status).toBe(200)
    await expect.poll(() => again.ended, POLL).toBe(true)
    expect((await team('GET', '/svc/dbs/team/records.json', {cookie: cookies.alice})).status).toBe(401)
  })
})
