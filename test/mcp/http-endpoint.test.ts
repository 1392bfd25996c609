import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createWorld, type World} from '../helpers/world.js'

const INIT = {jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 't', version: '1'}}}

/** `/svc/mcp` and the read-only flag, in-process: what a caller without the SDK meets. */
describe('/svc/mcp and the read-only flag of the API', () => {
  let world: World
  beforeAll(async () => {
    world = await createWorld({users: [{login: 'admin', role: 'admin'}]})
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
    expect((await bad.json()).error).toBe('unknown tool group "shell"; use dbs, prompts, apps, flows or all')
    const garbage = await mcp('', {body: '{"hello": 1}'})
    expect(garbage.status).toBeGreaterThanOrEqual(400)
    expect(garbage.status).toBeLessThan(500)
    const notJson = await mcp('', {body: 'nope{'})
    expect(notJson.status).toBeGreaterThanOrEqual(400)
    expect(notJson.status).toBeLessThan(500)
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
})
