import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createWorld, type World} from '../helpers/world.js'
import {refusalOf} from './helpers.js'

const BODY_LIMIT = 6 * 1024 * 1024
const ACCEPT = 'application/json, text/event-stream'
const INIT = {jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 't', version: '1'}}}

/** `/svc/mcp` and the read-only flag, in-process: what a caller without the SDK meets. */
describe('/svc/mcp and the read-only flag of the API', () => {
  let world: World
  beforeAll(async () => {
    // A body limit above the SDK's own 4 MiB default: the server's limit is the one that holds.
    world = await createWorld({users: [{login: 'admin', role: 'admin'}]}, {bodyLimit: BODY_LIMIT, quotas: {record_bytes: 1024}})
  })
  afterAll(() => world.close())

  const request = (path: string, init: RequestInit & {token?: string | null} = {}) => {
    const headers = new Headers(init.headers)
    if (init.token !== null) headers.set('authorization', `Bearer ${init.token ?? world.users.admin!.token}`)
    return world.app.request(`http://localhost${path}`, {...init, headers})
  }
  const mcp = (query = '', init: RequestInit & {token?: string | null} = {}) => request(`/svc/mcp${query}`, {
    method: 'POST', body: JSON.stringify(INIT), ...init,
    headers: {'content-type': 'application/json', accept: 'application/json, text/event-stream', ...Object.fromEntries(new Headers(init.headers))},
  })

  it('answers initialize to a bearer token, 401 without one, 405 to GET and DELETE', async () => {
    const ok = await mcp()
    expect(ok.status).toBe(200)
    expect((await ok.json()).result.serverInfo.name).toBe('svc')
    const anonymous = await mcp('', {token: null})
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer')
    expect((await mcp('', {token: 'not-a-token'})).status).toBe(401)
    for (const method of ['GET', 'DELETE']) {
      const res = await request('/svc/mcp', {method})
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('POST')
    }
  })

  it('refuses an unknown tool group with a 400 naming it, and a body that is not JSON-RPC without a 5xx', async () => {
    const bad = await mcp('?tools=dbs,shell')
    expect(bad.status).toBe(400)
    expect((await bad.json()).error).toBe('unknown tool group "shell"; use dbs, prompts, apps, flows, history or all')
    const garbage = await mcp('', {body: '{"hello": 1}'})
    expect(garbage.status).toBeGreaterThanOrEqual(400)
    expect(garbage.status).toBeLessThan(500)
    const notJson = await mcp('', {body: 'nope{'})
    expect(notJson.status).toBeGreaterThanOrEqual(400)
    expect(notJson.status).toBeLessThan(500)
  })

  const call = (id: number, name: string, args: Record<string, unknown>) => ({jsonrpc: '2.0', id, method: 'tools/call', params: {name, arguments: args}})

  it('refuses a browser session (403) and answers 404 on an app origin, as every API route there', async () => {
    const session = await world.store.accounts.createToken(world.users.admin!.id, 'session', 3600)
    const viaCookie = await world.app.request('http://localhost/svc/mcp', {
      method: 'POST', body: JSON.stringify(INIT),
      headers: {cookie: `svc_session=${session}`, origin: 'http://localhost', 'sec-fetch-site': 'same-origin', 'content-type': 'application/json', accept: ACCEPT},
    })
    expect(viaCookie.status).toBe(403)
    expect((await viaCookie.json()).error).toMatch(/takes a bearer token/)

    const app = await request('/svc/apps.json', {method: 'POST', headers: {'content-type': 'application/json'},
      body: JSON.stringify({app: {name: 'Tile', url_code: 'tile', app_engine: 'html', css_engine: 'none', source_code: '<p>hi</p>'}})})
    expect(app.status).toBe(201)
    const onAppOrigin = await world.app.request('http://tile.localhost/svc/mcp', {
      method: 'POST', body: JSON.stringify(INIT),
      headers: {authorization: `Bearer ${world.users.admin!.token}`, 'content-type': 'application/json', accept: ACCEPT},
    })
    expect(onAppOrigin.status).toBe(404)
    expect(await onAppOrigin.json()).toEqual({error: 'not found'})
  })

  it('holds the server\'s body limit (declared or streamed) and its quotas; a batch gets one answer per call, no 5xx', async () => {
    const big = (size: number) => JSON.stringify(call(2, 'dbs_search', {db_id: 'none', q: 'x'.repeat(size)}))
    expect((await mcp('', {body: big(BODY_LIMIT + 10)})).status).toBe(413)
    const streamed = new ReadableStream({start(controller) {
      controller.enqueue(new TextEncoder().encode(big(BODY_LIMIT + 10)))
      controller.close()
    }})
    expect((await mcp('', {body: streamed, duplex: 'half'} as RequestInit)).status).toBe(413)

    // Over the SDK's default 4 MiB, under the server's limit: the call reaches the API, whose quota refuses the record.
    const db = await request('/svc/dbs.json', {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({db: {name: 'Big', code: 'big'}})})
    expect(db.status).toBe(201)
    const huge = await mcp('', {body: JSON.stringify(call(3, 'dbs_create', {db_id: 'big', data: {note: 'x'.repeat(4.5 * 1024 * 1024)}}))})
    expect(huge.status).toBe(200)
    const answer = await huge.json()
    expect(answer.result.isError).toBe(true)
    expect(refusalOf(answer.result)).toMatch(/^The API refused: 422 data: is \d+ bytes/)

    const batch = await mcp('', {body: JSON.stringify([call(4, 'dbs_list', {}), call(5, 'dbs_get', {db_id: '..', id: '1'})])})
    expect(batch.status).toBe(200)
    const answers = await batch.json()
    expect(answers.map((a: {id: number}) => a.id).sort()).toEqual([4, 5])
    const tooMany = await mcp('', {body: JSON.stringify(Array.from({length: 101}, (_, i) => call(i + 10, 'dbs_list', {})))})
    expect(tooMany.status).toBe(400)
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    const nested = await mcp('', {body: `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"prompts_render","arguments":{"code":"x","variables":{"a":${deep}}}}}`})
    expect(nested.status).toBeLessThan(500)
  })

  it('the X-Svc-Read-Only header makes the API refuse every write, GETs that write included', async () => {
    const ro = {'x-svc-read-only': '1', 'content-type': 'application/json'}
    const db = await request('/svc/dbs.json', {method: 'POST', headers: {'content-type': 'application/json'},
      body: JSON.stringify({db: {name: 'Open', code: 'open', public_methods: {create: true, list: true}}})})
    expect(db.status).toBe(201)
    const refused = [
      await request('/svc/dbs.json', {method: 'POST', headers: ro, body: JSON.stringify({db: {name: 'X'}})}),
      await request('/svc/dbs/open/records.json', {method: 'POST', headers: ro, body: JSON.stringify({record: {data: {a: 1}}})}),
      await request('/svc/db/open/create?data=%7B%22a%22%3A1%7D', {headers: ro}),
      await request('/svc/db/open/%63reate?data=%7B%22a%22%3A1%7D', {headers: ro}),
      await request('/svc/db/open/CREATE?data=%7B%22a%22%3A1%7D', {headers: ro, token: null}),
      await request('/svc/connector/any/thing', {headers: ro}),
    ]
    for (const res of refused) {
      expect(res.status).toBe(403)
      expect(await res.json()).toEqual({error: 'read-only: this connection may not change anything'})
    }
    expect((await (await request('/svc/dbs/open.json', {headers: ro})).json()).records_count).toBe(0)
    expect((await request('/svc/db/open/list', {headers: ro})).status).toBe(200)
  })

  it('a read-only token (svc admin user token --read-only) reads, is refused every write, and makes /svc/mcp read-only', async () => {
    const admin = world.users.admin!
    const reader = await world.store.accounts.createToken(admin.id, 'api:read')
    const json = {'content-type': 'application/json'}
    expect((await request('/svc/me.json', {token: reader})).status).toBe(200)
    expect((await request('/svc/dbs/open.json', {token: reader})).status).toBe(200)
    const refused = [
      await request('/svc/prompts.json', {method: 'POST', token: reader, headers: json, body: JSON.stringify({prompt: {name: 'P', code: 'p', content: 'x'}})}),
      await request('/svc/dbs/open/records.json', {method: 'POST', token: reader, headers: json, body: JSON.stringify({record: {data: {a: 1}}})}),
      await request('/svc/dbs/open.json', {method: 'DELETE', token: reader}),
      await request('/svc/db/open/create?data=%7B%22a%22%3A1%7D', {token: reader}),
      await request('/svc/connector/any/thing', {token: reader}),
    ]
    for (const res of refused) {
      expect(res.status).toBe(403)
      expect(await res.json()).toEqual({error: 'read-only: this token may not change anything'})
    }
    expect((await (await request('/svc/dbs/open.json')).json()).records_count).toBe(0)
    // Over MCP: the write tools are not listed, and a crafted call to one is the API's refusal.
    const list = await (await mcp('', {token: reader, body: JSON.stringify({jsonrpc: '2.0', id: 2, method: 'tools/list'})})).json()
    const names = list.result.tools.map((t: {name: string}) => t.name)
    expect(names).toContain('dbs_search')
    expect(names.filter((n: string) => /create|update|replace|delete|_run$/.test(n))).toEqual([])
    const crafted = await (await mcp('', {token: reader, body: JSON.stringify(call(3, 'dbs_create', {db_id: 'open', data: {a: 1}}))})).json()
    expect(JSON.stringify(crafted.result.content)).toContain('read-only')
    expect((await (await request('/svc/dbs/open.json')).json()).records_count).toBe(0)
    // The user's full token still writes; replacing the user's tokens revokes the read-only one too.
    expect((await request('/svc/prompts.json', {method: 'POST', headers: json, body: JSON.stringify({prompt: {name: 'Q', code: 'q', content: 'x'}})})).status).toBe(201)
    const {token} = await world.store.accounts.replaceApiTokens(admin.id)
    expect((await request('/svc/me.json', {token: reader})).status).toBe(401)
    world.users.admin!.token = token
  })
})
