// Issue 40 N2: an upstream error's text is redacted whole, then cut — a secret straddling the cut
// (moved by the length of the path the caller chooses) shows in no part: not in a public method's
// answer, a flow run's error or trace, nor the server's log; an upstream that prints a piece of the
// secret (a prefix, a secret wrapped on two lines, URL-encoded) hands none of it on either.
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {redactExcerpt} from '../../src/core/flows/connector.js'
import {makeCall, type Ctx} from '../helpers/scenarios.js'
import {createWorld, openTransport, TRANSPORTS, type Transport, type World} from '../helpers/world.js'

const SECRET = 'Zq9kX7vB2mW4pL8tR6yH3nJ5cF1dG0sA+/=e'
/** Pieces of 6 characters or more of the secret (as is or URL-encoded) found in a text. */
const pieces = (text: string) => {
  const found: string[] = []
  for (const form of [SECRET, encodeURIComponent(SECRET)]) {
    for (let i = 0; i + 6 <= form.length; i++) if (text.includes(form.slice(i, i + 6))) found.push(form.slice(i, i + 6))
  }
  return found
}

let upstream: Server
let base = ''
beforeAll(async () => {
  upstream = createServer((req, res) => {
    const auth = String(req.headers.authorization ?? '')
    const key = auth.replace(/^Bearer /, '')
    res.writeHead(req.url?.startsWith('/prefix') ? 401 : 500, {'content-type': 'text/plain'})
    if (req.url?.startsWith('/prefix')) return res.end(`invalid token ${key.slice(0, 20)}... (check your settings)`)
    if (req.url?.startsWith('/wrapped')) return res.end(`token:\n${key.slice(0, 18)}\n${key.slice(18)}\n`)
    if (req.url?.startsWith('/encoded')) return res.end(`see https://example.test/?key=${encodeURIComponent(key)}`)
    // The careless API of the attack: echoes the path it was asked, then the header.
    res.end(`error at ${req.url} for ${auth} and more text after it`)
  })
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => upstream.close(() => r())))

for (const name of TRANSPORTS) {
  describe(`a connector secret through the cut [${name}]`, () => {
    const log: string[] = []
    let world: World
    let transport: Transport
    let ctx: Pick<Ctx, 'call'>
    beforeAll(async () => {
      world = await createWorld({accounts: ['acme'], users: [{login: 'admin', role: 'admin'}]}, {log: (line) => log.push(line)})
      transport = await openTransport(name, world.app)
      ctx = {call: makeCall(world, transport)}
      const methods = ['fail', 'prefix', 'wrapped', 'encoded'].map((m) => ({name: m, http_method: 'GET', path: m === 'fail' ? '/fail/{pad}' : `/${m}`, public: true}))
      const r = await ctx.call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_connector', code: 'leaky', name: 'leaky', url: base,
        secret_token: SECRET, fields: {methods}}}})
      expect(r.status, r.text).toBe(201)
    })
    afterAll(async () => {
      await transport?.close()
      await world?.close()
    })

    it('a public method answers no piece of the secret wherever the path puts the cut', async () => {
      // "leaky.fail answered 500: error at /fail/<pad> for Bearer <secret>": the cut at 200 moves through the secret.
      for (let pad = 112; pad <= 148; pad += 1) {
        const r = await ctx.call('GET', `/svc/connector/leaky/fail?pad=${'p'.repeat(pad)}`, {as: null})
        expect(r.status).toBe(502)
        expect(pieces(r.text), `pad ${pad}: ${r.text}`).toEqual([])
      }
      expect(pieces(log.join('\n'))).toEqual([])
      expect(log.join('\n')).toContain('[secret')
    })

    it('an upstream that prints a prefix of the secret, wraps it or URL-encodes it hands none of it on', async () => {
      for (const m of ['prefix', 'wrapped', 'encoded']) {
        const r = await ctx.call('GET', `/svc/connector/leaky/${m}`, {as: null})
        expect(r.status).toBe(502)
        expect(pieces(r.text), r.text).toEqual([])
        expect(r.json.error).toContain('[secret]')
      }
    })

    it("a flow run's error and trace hold no piece of it, nor the server's log", async () => {
      const flow = await ctx.call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_flow', code: 'cut',
        fields: {program: [{type: 'connector', connector: 'leaky', method: 'fail', params: {pad: '{pad}'}}]}}}})
      expect(flow.status, flow.text).toBe(201)
      for (let pad = 112; pad <= 148; pad += 4) {
        const run = await ctx.call('POST', `/svc/resources/${flow.json.id}/run.json`, {body: {input: {pad: 'p'.repeat(pad)}}})
        expect(run.status, run.text).toBe(201)
        let ended = run
        for (let i = 0; i < 2400 && ended.json.status === 'pending'; i++) { // up to a minute: a loaded machine
          await new Promise((r) => setTimeout(r, 25))
          ended = await ctx.call('GET', `/connect/flow_processes/${run.json.id}.json`)
        }
        expect(ended.json.status).toBe('error')
        expect(ended.json.error).toMatch(/leaky\.fail answered 500/)
        expect(ended.json.trace.steps[0].error).toBe(ended.json.error)
        expect(pieces(ended.text), `pad ${pad}: ${ended.json.error}`).toEqual([])
      }
      const list = await ctx.call('GET', '/connect/flow_processes.json?flow_code=cut')
      expect(pieces(list.text)).toEqual([])
      expect(pieces(log.join('\n'))).toEqual([])
    })
  })
}

describe('redactExcerpt', () => {
  it('redacts the whole text before the cut, then any run of 8 or more characters of the secret', () => {
    const text = `${'x'.repeat(190)} Bearer ${SECRET} tail`
    for (let max = 190; max < 240; max++) expect(pieces(redactExcerpt(text, max, SECRET)), `max ${max}`).toEqual([])
    expect(redactExcerpt(`a ${SECRET} b`, 200, SECRET)).toBe('a [secret] b')
    expect(redactExcerpt(`key ${SECRET.slice(0, 12)}… b`, 200, SECRET)).toBe('key [secret]… b')
    // 7 characters alone are not taken for a piece of it: ordinary text stays.
    expect(redactExcerpt(`key ${SECRET.slice(0, 7)} b`, 200, SECRET)).toBe(`key ${SECRET.slice(0, 7)} b`)
    expect(redactExcerpt('no secret here', 200, null)).toBe('no secret here')
  })
})
