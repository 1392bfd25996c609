// Path parameters of connector methods (docs/security.md "Issue 24" L3): a value is one path
// segment, encoded, and never `.` or `..` — which the URL parser would resolve, walking a public
// method's upstream path (`/v1/public/items/{id}` with id=.. became `/v1/public/`) with the secret.
// The stub upstream (test/flows/stub.ts) records the path each request reached it with.
import {afterAll, beforeAll, expect, it} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'
import {startStub, type Stub} from '../flows/stub.js'

let stub: Stub
beforeAll(async () => (stub = await startStub()))
afterAll(async () => stub?.close())

const SEED = {accounts: ['acme'], users: [{login: 'admin', role: 'admin' as const}]}

describeBothTransports('connector path parameters', SEED, (ctx, transport) => {
  const code = `items_${transport.replace('-', '_')}`
  const upstreamPaths = (since: number) => stub.requests.slice(since).map((r) => r.path)

  it('a public method: `.` and `..` are a 422 naming the parameter, sent nowhere; other values are one encoded segment', async () => {
    const made = await ctx().call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_connector', code, name: 'items',
      url: `${stub.url}/v1/public`, secret_token: 'secret-of-the-connector',
      fields: {methods: [{name: 'item', http_method: 'GET', path: '/items/{id}', public: true}, {name: 'put', http_method: 'POST', path: '/items/{id}/x', public: true}]}}}})
    expect(made.status, made.text).toBe(201)
    for (const id of ['..', '.']) {
      const since = stub.requests.length
      for (const [verb, url, body] of [
        ['GET', `/svc/connector/${code}/item?id=${encodeURIComponent(id)}`, undefined],
        ['POST', `/svc/connector/${code}/put`, {id}],
        ['POST', `/svc/connector/${code}/item`, {id}],
      ] as const) {
        const r = await ctx().call(verb, url, {as: null, body})
        expect(r.status, `${verb} ${url} ${JSON.stringify(body)} → ${r.text}`).toBe(422)
        expect(r.json).toEqual({id: ['must not be "." or ".." (a path segment)']})
      }
      expect(upstreamPaths(since)).toEqual([])
    }
    const cases: [string, string][] = [['a/b', 'a%2Fb'], ['%2e%2e', '%252e%252e'], ['..a', '..a'], ['a..', 'a..'], ['?x=1#y', '%3Fx%3D1%23y'], ['...', '...']]
    for (const [id, sent] of cases) {
      const since = stub.requests.length
      await ctx().call('GET', `/svc/connector/${code}/item?id=${encodeURIComponent(id)}`, {as: null})
      expect(upstreamPaths(since), id).toEqual([`/api/v1/public/items/${sent}`])
    }
  })

  it('a flow step with `..` as a path parameter ends in error before any request', async () => {
    const flow = await ctx().call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_flow', code: `walk_${code}`,
      fields: {program: [{type: 'connector', connector: code, method: 'item', params: {id: '{id}'}, into: 'out'}]}}}})
    expect(flow.status, flow.text).toBe(201)
    const since = stub.requests.length
    let run = await ctx().call('POST', `/svc/resources/${flow.json.id}/run.json`, {body: {input: {id: '..'}}})
    for (let i = 0; i < 1200 && run.json?.status === 'pending'; i++) { // up to a minute: a loaded machine
      await new Promise((r) => setTimeout(r, 50))
      run = await ctx().call('GET', `/connect/flow_processes/${run.json.id}.json`)
    }
    expect(run.json.status, run.text).toBe('error')
    expect(run.json.error).toContain('must not be "." or ".."')
    expect(upstreamPaths(since)).toEqual([])
  })
})
