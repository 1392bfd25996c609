// The egress policy of connectors (docs/security.md "Egress policy" and issue 24 "Info"): IPv6
// spellings that embed or tunnel an IPv4 address — IPv4-compatible `::a.b.c.d` (`::/96`, which the
// URL parser writes `[::7f00:1]`), the rest of the reserved `::/8`, 6to4 `2002::/16`, Teredo
// `2001::/32`, NAT64 — are refused like the address they stand for, with the one message, and
// nothing is sent. An upstream listens on every interface (`::`), so a hole would be seen as a hit.
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {checkedAddress, egressPolicy, isPublicAddress} from '../../src/services/egress.js'
import {makeCall, type Ctx} from '../helpers/scenarios.js'
import {createWorld, openTransport, TRANSPORTS} from '../helpers/world.js'

let upstream: Server
let port = 0
let hits = 0
beforeAll(async () => {
  upstream = createServer((_req, res) => {
    hits++
    res.writeHead(200, {'content-type': 'application/json'})
    res.end('{"internal": "secret admin panel"}')
  })
  await new Promise<void>((r) => upstream.listen(0, '::', r))
  port = (upstream.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((r) => upstream.close(() => r())))

/** Hosts that stand for a loopback, private, link-local or reserved IPv4 address, or a reserved IPv6 one. */
const REFUSED = [
  '[::127.0.0.1]', '[::7f00:1]', '[0:0:0:0:0:0:127.0.0.1]', '[::10.0.0.1]', '[::169.254.169.254]', '[::8.8.8.8]', '[::a00:1]',
  '[::ffff:0:7f00:1]', '[::ffff:7f00:1]', '[64:ff9b::7f00:1]', '[64:ff9b:1::a00:1]', '[100::1]', '[fec0::1]', '[::2]', '[1::1]', '[ff::1]',
  '[2002:7f00:1::]', '[2002:7f00:1::1]', '[2002:a9fe:a9fe::1]', '[2002:a00:1::1]', '[2002:808:808::1]',
  '[2001:0:4136:e378:8000:63bf:3fff:fdd2]', '[2001::1]', '[2001:0:7f00:1::1]',
]

describe('egress policy: IPv4 inside IPv6', () => {
  it('refuses every embedded, compatible, 6to4, Teredo and NAT64 form, whatever the embedded address', async () => {
    const policy = egressPolicy()
    for (const host of REFUSED) {
      const address = new URL(`http://${host}/`).hostname.replace(/^\[|\]$/g, '')
      expect(isPublicAddress(address), `${host} (${address})`).toBe(false)
      await expect(checkedAddress(new URL(`http://${host}/`).hostname, policy), host).rejects.toThrow(/refused by egress policy/)
    }
  })

  it('still lets public unicast addresses through (IPv6 and IPv4-mapped public IPv4)', () => {
    for (const address of ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '8.8.8.8', '::ffff:8.8.8.8', '1.1.1.1']) {
      expect(isPublicAddress(address), address).toBe(true)
    }
  })
})

for (const name of TRANSPORTS) {
  describe(`connectors to IPv4-in-IPv6 hosts [${name}]`, () => {
    let ctx: Ctx
    beforeAll(async () => {
      // The worlds of other tests let 127.0.0.1 through for the flow stubs; this server allows nothing.
      const world = await createWorld({accounts: ['acme'], users: [{login: 'admin', role: 'admin'}]}, {allowConnectorHosts: []})
      const transport = await openTransport(name, world.app)
      ctx = {world, transport, call: makeCall(world, transport)}
    })
    afterAll(async () => {
      await ctx?.transport.close()
      await ctx?.world.close()
    })

    it('answer 502 "refused by egress policy" (as the owner and anonymously) and send nothing', async () => {
      const before = hits
      for (const [i, host] of REFUSED.entries()) {
        const code = `v6_${i}`
        const made = await ctx.call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_connector', code, name: code,
          url: `http://${host}:${port}`, fields: {methods: [{name: 'get', http_method: 'GET', path: '/', public: true}]}}}})
        expect(made.status, made.text).toBe(201)
        for (const as of ['admin', null] as const) {
          const r = await ctx.call('GET', `/svc/connector/${code}/get`, {as})
          expect(r.status, `${host}: ${r.text}`).toBe(502)
          expect(r.json.error).toMatch(/refused by egress policy/)
          expect(r.text).not.toMatch(/secret admin panel/)
        }
      }
      expect(hits).toBe(before)
    })
  })
}
