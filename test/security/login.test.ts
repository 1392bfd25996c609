// Sign-in hardening and the one client-address rule (docs/security.md "Sign-in" and "Client address").
import {describe, expect, it} from 'vitest'
import {clientIpOf} from '../../src/http/client-ip.js'
import {safeNext} from '../../src/http/routes/login.js'
import {describeBothTransports, makeCall} from '../helpers/scenarios.js'
import {createWorld, openTransport, TRANSPORTS} from '../helpers/world.js'

const form = (token: string, next = '/') => new URLSearchParams({token, next}).toString()
const FORM = {'content-type': 'application/x-www-form-urlencoded'}

describeBothTransports('sign-in', undefined, (ctx) => {
  const login = (headers: Record<string, string>, body: string) =>
    ctx().transport.fetch('/svc/login', {method: 'POST', redirect: 'manual', headers: {...FORM, ...headers}, body})

  it('a post from another origin or site is refused (no login CSRF); the own origin and non-browsers sign in', async () => {
    const token = ctx().world.users.alice!.token
    for (const headers of [{origin: 'http://evil.example'}, {'sec-fetch-site': 'cross-site'}, {'sec-fetch-site': 'same-site'},
      {origin: 'http://cats.localhost'}, {referer: 'http://evil.example/x'}]) {
      const r = await login(headers, form(token))
      expect(r.status, JSON.stringify(headers)).toBe(403)
      expect(r.headers.get('set-cookie')).toBeNull()
    }
    expect((await login({origin: ctx().transport.origin, 'sec-fetch-site': 'same-origin'}, form(token))).status).toBe(303)
    expect((await login({}, form(token))).status).toBe(303)
    const logout = await ctx().transport.fetch('/svc/logout', {method: 'POST', redirect: 'manual', headers: {'sec-fetch-site': 'cross-site'}})
    expect(logout.status).toBe(403)
  })

  it('next is only ever a path of this origin', async () => {
    const token = ctx().world.users.alice!.token
    // (Sign-ins are rate-limited per address: a few over HTTP here, the whole table through safeNext below.)
    for (const [next, expected] of [['/a/x?y=1#z', '/a/x?y=1#z'], ['//evil.example/x', '/'], ['/\t/evil.example/x', '/']]) {
      const r = await login({}, form(token, next!))
      expect(r.headers.get('location'), JSON.stringify(next)).toBe(expected)
    }
    for (const [next, expected] of [
      ['/a/x?y=1#z', '/a/x?y=1#z'], ['//evil.example/x', '/'], ['/\t/evil.example/x', '/'], ['/%09/evil.example/x', '/%09/evil.example/x'],
      ['/\\evil.example', '/'], ['https://evil.example/', '/'], ['javascript:alert(1)', '/'], ['/\r\nSet-Cookie:x=1', '/'], ['', '/'],
      ['/x/../../y', '/y'],
    ]) {
      expect(safeNext(next), JSON.stringify(next)).toBe(expected)
      expect(new URL(safeNext(next), 'http://svc.test').host).toBe('svc.test')
    }
    // The query string form of the issue: `?next=/%09/evil.example/x` decodes to a tab.
    const page = await ctx().transport.fetch('/svc/login?next=/%09/evil.example/x')
    expect(await page.text()).toContain('name="next" value="/"')
  })
})

describe('sign-in: rate limit, Secure cookie', () => {
  for (const name of TRANSPORTS) {
    it(`[${name}] attempts per client address are limited (429 + Retry-After); another address still signs in`, async () => {
      const world = await createWorld(undefined, {trustProxy: true})
      const transport = await openTransport(name, world.app)
      try {
        const from = (ip: string, token: string) => transport.fetch('/svc/login', {method: 'POST', redirect: 'manual',
          headers: {...FORM, 'x-forwarded-for': ip}, body: form(token)})
        const statuses = []
        for (let i = 0; i < 11; i++) statuses.push((await from('203.0.113.9', 'wrong')).status)
        expect(statuses).toEqual([...Array(10).fill(401), 429])
        const limited = await from('203.0.113.9', world.users.alice!.token)
        expect(limited.status).toBe(429)
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
        // A spoofed left-hand X-Forwarded-For hop does not give a new allowance: the right-most hop counts.
        expect((await from('198.51.100.1, 203.0.113.9', world.users.alice!.token)).status).toBe(429)
        expect((await from('198.51.100.1', world.users.alice!.token)).status).toBe(303)
      } finally {
        await transport.close()
        await world.close()
      }
    })

    it(`[${name}] the session cookie is Secure over https, also via a trusted proxy's X-Forwarded-Proto only`, async () => {
      for (const trustProxy of [true, false]) {
        const world = await createWorld(undefined, {trustProxy})
        const transport = await openTransport(name, world.app)
        try {
          const r = await transport.fetch('/svc/login', {method: 'POST', redirect: 'manual', headers: {...FORM, 'x-forwarded-proto': 'https'},
            body: form(world.users.alice!.token)})
          expect(r.status).toBe(303)
          const cookie = r.headers.get('set-cookie')!
          expect(cookie).toMatch(/HttpOnly/)
          expect(/;\s*Secure/i.test(cookie), `trustProxy ${trustProxy}`).toBe(trustProxy)
        } finally {
          await transport.close()
          await world.close()
        }
      }
    })
  }
})

describe('one client-address rule', () => {
  it('the peer; behind a trusted proxy the right-most hop that is not a proxy', () => {
    expect(clientIpOf('10.0.0.5', '6.6.6.6', false)).toBe('10.0.0.5')
    expect(clientIpOf('10.0.0.5', undefined, true)).toBe('10.0.0.5')
    expect(clientIpOf('10.0.0.5', '6.6.6.6, 203.0.113.7', true)).toBe('203.0.113.7')
    expect(clientIpOf('10.0.0.5', '203.0.113.7, 127.0.0.1', true)).toBe('203.0.113.7')
    expect(clientIpOf('10.0.0.5', '203.0.113.7, 10.0.0.5', true)).toBe('203.0.113.7')
    expect(clientIpOf('127.0.0.1', '::ffff:203.0.113.7', true)).toBe('203.0.113.7')
    expect(clientIpOf('127.0.0.1', ' , ', true)).toBe('127.0.0.1')
  })

  it('{ip}, the public db write limit and the public action limit all use it', async () => {
    const world = await createWorld(undefined, {trustProxy: true, dbPublicWrites: {limit: 2, windowSeconds: 60}})
    const transport = await openTransport('http', world.app)
    try {
      const call = makeCall(world, transport)
      await call('POST', '/svc/dbs.json', {body: {db: {name: 'ip', code: 'ipdb', public_methods: {create: {auto_fields: {ip: '{ip}'}}}}}})
      const create = (xff: string) => call('POST', '/svc/db/ipdb/create', {as: null, body: {data: {}}, headers: {'x-forwarded-for': xff}})
      const first = await create('6.6.6.6, 203.0.113.7')
      expect(first.json.data.ip).toBe('203.0.113.7')
      expect((await create('7.7.7.7, 203.0.113.7')).status).toBe(201)
      expect((await create('8.8.8.8, 203.0.113.7')).status).toBe(429)
      await call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_flow', code: 'f', name: 'f', fields: {program: []}}}})
      const app = await call('POST', '/svc/apps.json', {body: {app: {name: 'ip', app_engine: 'html', css_engine: 'none', public: true, source_code: 'x',
        actions: [{action: 'go', flow_code: 'f', public: true}]}}})
      const statuses: number[] = []
      for (let i = 0; i < 31; i++) {
        statuses.push((await call('POST', `/svc/apps/${app.json.id}/action/go`, {as: null, body: {}, headers: {'x-forwarded-for': `10.9.${i}.1, 203.0.113.8`}})).status)
      }
      expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true)
      expect(statuses[30]).toBe(429)
    } finally {
      await transport.close()
      await world.close()
    }
  })
})

it('safeNext', () => {
  expect(safeNext('/x')).toBe('/x')
  expect(safeNext('/x/../../y')).toBe('/y')
  expect(safeNext('//x')).toBe('/')
  expect(safeNext(undefined)).toBe('/')
})
