// Connector secrets (docs/security.md "Connector secrets"): a secret only goes to the host it was given
// for, never comes back from an upstream that echoes it, and redaction does not rewrite ordinary text.
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {redact, redactValue} from '../../src/core/flows/connector.js'
import {describeBothTransports} from '../helpers/scenarios.js'

const SECRET = 'sk-live-8f2c1e77d9'
let upstream: Server
let base = ''
let other = ''
let hits = 0

beforeAll(async () => {
  upstream = createServer((req, res) => {
    hits++
    const headers = JSON.stringify(req.headers)
    if (req.url?.startsWith('/text')) {
      res.writeHead(200, {'content-type': 'text/plain', 'x-echo': String(req.headers.authorization)})
      return res.end(`you sent ${req.headers.authorization}`)
    }
    res.writeHead(200, {'content-type': 'application/json', 'x-echo': String(req.headers.authorization)})
    res.end(JSON.stringify({headers: JSON.parse(headers), nested: [{[String(req.headers.authorization)]: req.headers.authorization}]}))
  })
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
  const port = (upstream.address() as AddressInfo).port
  base = `http://127.0.0.1:${port}`
  other = `http://localhost:${port}`
})
afterAll(() => new Promise<void>((r) => upstream.close(() => r())))

const SEED = {
  accounts: ['acme'],
  users: [{login: 'admin', role: 'admin' as const}, {login: 'alice', role: 'user' as const}],
}

describeBothTransports('connector secrets', SEED, (ctx) => {
  let id: number
  const code = () => `echo_${ctx().transport.name.replace('-', '_')}`

  it('a secret shorter than 8 characters is refused (422)', async () => {
    const r = await ctx().call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_connector', code: 'short', name: 's', url: base,
      secret_token: 'S', fields: {methods: []}}}})
    expect(r.status).toBe(422)
    expect(r.json).toEqual({secret_token: ['is too short (minimum is 8 characters)']})
  })

  it('an upstream that echoes the secret in a 2xx answer (JSON or text) hands none of it to the caller', async () => {
    const r = await ctx().call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_connector', code: code(), name: 'echo', url: base,
      secret_token: SECRET, fields: {methods: [{name: 'json', http_method: 'GET', path: '/json', public: true},
        {name: 'text', http_method: 'GET', path: '/text', public: true}]}}}})
    expect(r.status, r.text).toBe(201)
    id = r.json.id
    for (const method of ['json', 'text']) {
      for (const as of [null, 'admin']) {
        const res = await ctx().call('GET', `/svc/connector/${code()}/${method}`, {as})
        expect(res.status, res.text).toBe(200)
        expect(res.text).not.toContain(SECRET)
        expect(res.text).toContain('[secret]')
        for (const [, v] of res.headers) expect(v).not.toContain(SECRET)
      }
    }
  })

  it('a connector call reads its body like every body: 64 levels deep at most (422), malformed or not an object (400), nothing sent upstream', async () => {
    const before = hits
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)
    for (const as of [null, 'admin']) {
      const r = await ctx().call('POST', `/svc/connector/${code()}/json`, {as, rawBody: `{"q": ${deep}}`})
      expect(r.status, r.text.slice(0, 200)).toBe(422)
      expect(r.json).toEqual({body: ['nests deeper than 64 levels']})
      expect((await ctx().call('POST', `/svc/connector/${code()}/json`, {as, rawBody: '{bad'})).json).toEqual({error: 'invalid JSON body'})
      expect((await ctx().call('POST', `/svc/connector/${code()}/json`, {as, rawBody: '[1]'})).status).toBe(400)
    }
    expect(hits).toBe(before)
    // 64 levels pass and reach the upstream.
    const ok = await ctx().call('POST', `/svc/connector/${code()}/json`, {as: 'admin', rawBody: `{"q": ${'['.repeat(63)}${']'.repeat(63)}}`})
    expect(ok.status, ok.text.slice(0, 200)).toBe(200)
    expect(hits).toBe(before + 1)
  })

  it('moving a connector to another host needs the secret again, or an admin', async () => {
    const patch = (as: string, resource: Record<string, unknown>) => ctx().call('PATCH', `/svc/resources/${id}.json`, {as, body: {resource}})
    const moved = await patch('alice', {url: other})
    expect(moved.status).toBe(422)
    expect(moved.json).toEqual({secret_token: ["must be given again when the url's host changes"]})
    expect((await ctx().call('GET', `/svc/resources/${id}.json`)).json.url).toBe(base)
    // Same host, another path: fine.
    expect((await patch('alice', {url: `${base}/v2`})).status).toBe(200)
    // With the secret given again: fine (it is the user's own secret now).
    expect((await patch('alice', {url: other, secret_token: 'alice-own-secret-1'})).status).toBe(200)
    // An admin may repoint without it.
    expect((await patch('admin', {url: base})).status).toBe(200)
    // Clearing the secret and moving is fine too: nothing is sent.
    expect((await patch('alice', {url: other, secret_token: null})).status).toBe(200)
  })
})

describe('redaction', () => {
  it('rewrites the secret, not single letters of other words; every string of a JSON answer, keys included', () => {
    expect(redact('ECONNREFUSED', 'S')).toBe('ECONNREFUSED')
    expect(redact('key S used', 'S')).toBe('key [secret] used')
    expect(redact(`Bearer ${SECRET}!`, SECRET)).toBe('Bearer [secret]!')
    expect(redact('a.b a+b', 'a.b')).toBe('[secret] a+b')
    expect(redactValue({[SECRET]: [SECRET, {x: `Bearer ${SECRET}`}], n: 1}, SECRET)).toEqual({'[secret]': ['[secret]', {x: 'Bearer [secret]'}], n: 1})
    expect(redactValue({a: 'x'}, null)).toEqual({a: 'x'})
  })
})
