// Issue 40 N3: the console session cannot be tossed. Over https (here: a trusted proxy's
// X-Forwarded-Proto) it is `__Host-svc_session` and a plain `svc_session` — what an app on a
// sibling subdomain can set for the parent domain — is never read: a write the victim's console
// makes lands in the victim's account, not the attacker's. `svc serve` warns at start when the
// apps share the console's parent domain where that prefix is not possible (plain http), and
// refuses a console host that would itself be an app host.
import {describe, expect, it} from 'vitest'
import {appsUrlRisks} from '../../src/http/app-origin/hosts.js'
import {svc, svcServe} from '../helpers/cli.js'
import {createWorld, openTransport, tempDir, TRANSPORTS} from '../helpers/world.js'

const FORM = {'content-type': 'application/x-www-form-urlencoded'}
const HTTPS = {'x-forwarded-proto': 'https'}

for (const name of TRANSPORTS) {
  describe(`the console session over https [${name}]`, () => {
    it('is a __Host- cookie; a tossed plain svc_session is not read, and the victim\'s writes stay in the victim\'s account', async () => {
      const world = await createWorld(undefined, {trustProxy: true})
      const transport = await openTransport(name, world.app)
      try {
        const signIn = async (token: string) => {
          const r = await transport.fetch('/svc/login', {method: 'POST', redirect: 'manual', headers: {...FORM, ...HTTPS},
            body: new URLSearchParams({token, next: '/'})})
          expect(r.status).toBe(303)
          return r.headers.get('set-cookie')!
        }
        const victimCookie = await signIn(world.users.alice!.token)
        expect(victimCookie).toMatch(/^__Host-svc_session=[^;]+;/)
        expect(victimCookie).toMatch(/;\s*Path=\/(;|$)/)
        expect(victimCookie).toMatch(/;\s*Secure/i)
        expect(victimCookie).toMatch(/;\s*HttpOnly/i)
        expect(victimCookie).not.toMatch(/Domain=/i)
        const victim = victimCookie.split(';')[0]!
        // The attacker (another account) signs in to get a session, and tosses it in as the plain name.
        const attacker = (await signIn(world.users.mallory!.token)).split(';')[0]!.replace(/^__Host-/, '')
        const me = async (cookie: string) => (await transport.fetch('/svc/me.json', {headers: {...HTTPS, cookie}})).json()
        expect((await me(attacker)).error).toBeDefined() // the plain name alone signs nobody in over https
        const both = `${attacker}; ${victim}`
        for (const cookie of [both, `${victim}; ${attacker}`]) {
          const who = await me(cookie)
          expect(who.login ?? who.user?.login, JSON.stringify(who)).toBe('alice')
        }
        // The victim's console creates a connector with its secret: it lands in the victim's account.
        const made = await transport.fetch('/svc/resources.json', {method: 'POST', headers: {...HTTPS, cookie: both, 'content-type': 'application/json',
          'sec-fetch-site': 'same-origin', origin: transport.origin},
        body: JSON.stringify({resource: {kind: 'svc/custom_connector', code: 'crm', name: 'crm', url: 'https://crm.example.com', secret_token: 'victims-secret-1'}})})
        expect(made.status, await made.clone().text()).toBe(201)
        expect((await world.store.flows.findConnector('crm'))!.accountId).toBe(world.users.alice!.accountId)
        // Sign-out clears the __Host- cookie and ends the session.
        const out = await transport.fetch('/svc/logout', {method: 'POST', redirect: 'manual', headers: {...HTTPS, cookie: victim, origin: transport.origin}})
        expect(out.status).toBe(303)
        expect(out.headers.get('set-cookie')).toMatch(/^__Host-svc_session=;.*Max-Age=0/i)
        expect((await me(victim)).error).toBeDefined()
      } finally {
        await transport.close()
        await world.close()
      }
    })

    it('over plain http the cookie keeps its plain name (no prefix is possible there)', async () => {
      const world = await createWorld()
      const transport = await openTransport(name, world.app)
      try {
        const r = await transport.fetch('/svc/login', {method: 'POST', redirect: 'manual', headers: FORM, body: new URLSearchParams({token: world.users.alice!.token})})
        expect(r.headers.get('set-cookie')).toMatch(/^svc_session=[^;]+;/)
        const me = await transport.fetch('/svc/me.json', {headers: {cookie: r.headers.get('set-cookie')!.split(';')[0]!}})
        expect(me.status).toBe(200)
      } finally {
        await transport.close()
        await world.close()
      }
    })
  })
}

describe('apps beside the console (svc serve --public-url --apps-url)', () => {
  it('warns where an app could toss the console cookie, refuses a console host that is an app host, is quiet otherwise', () => {
    const shared = appsUrlRisks('http://svc.example.com', 'http://{code}.apps.example.com', false)
    expect(shared.error).toBeUndefined()
    expect(shared.warning).toMatch(/^Warning: apps \(\*\.apps\.example\.com\) share the parent domain example\.com with the console \(svc\.example\.com\)/)
    expect(shared.warning).toContain('plain http')
    // https without --trust-proxy: svc cannot tell, the cookie would not be __Host-.
    expect(appsUrlRisks('https://svc.example.com', 'https://{code}.apps.example.com', false).warning).toContain('--trust-proxy')
    expect(appsUrlRisks('https://svc.example.com', 'https://{code}.apps.example.com', true)).toEqual({})
    // Apps under the console's own host share it too.
    expect(appsUrlRisks('http://example.com', 'http://{code}.apps.example.com', false).warning).toContain('parent domain example.com')
    // A domain of their own, an IP console or a single shared label: nothing to say.
    expect(appsUrlRisks('http://svc.example.com', 'http://{code}.example-apps.com', false)).toEqual({})
    expect(appsUrlRisks('http://10.0.0.5:4000', 'http://{code}.apps.example.com', false)).toEqual({})
    expect(appsUrlRisks('http://svc.lan', 'http://{code}.apps.lan', false)).toEqual({})
    // The console's host would be the origin of an app with url_code "svc".
    expect(appsUrlRisks('https://svc.example.com', 'https://{code}.example.com', true).error).toMatch(/is itself an app host/)
  })

  it('svc serve prints the warning at start, and refuses the console on an app host (exit 2)', async () => {
    const data = tempDir()
    const refused = await svc(['serve', '--port', '0', '--data', data, '--public-url', 'https://svc.example.com', '--apps-url', 'https://{code}.example.com'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('is itself an app host')
    const server = await svcServe(data, ['--public-url', 'http://svc.example.com', '--apps-url', 'http://{code}.apps.example.com'])
    try {
      // stderr and stdout are two pipes: the warning (written first) may be read just after the Listening line.
      for (let i = 0; i < 1500 && !server.output().includes('Warning: apps'); i++) await new Promise((r) => setTimeout(r, 20))
      expect(server.output()).toMatch(/Warning: apps \(\*\.apps\.example\.com\) share the parent domain example\.com/)
    } finally {
      await server.stop()
    }
  }, 120_000)
})
