// Issue 24 M3: a visitor id is bound to the origin that issued it (the host is signed in), so a
// cookie minted on one app's origin — or tossed onto a parent domain by another app — is a new visitor
// (no records) anywhere else; over https the server's cookies are `__Host-` cookies, which no sibling
// host can set, and a plain-named cookie is not read there. Both transports; hosts reached by Host.
import {describe, expect, it} from 'vitest'
import {describeBothTransports, makeCall, type Ctx} from '../helpers/scenarios.js'
import {createWorld, openTransport, TRANSPORTS} from '../helpers/world.js'

const host = (ctx: Ctx, label: string) => {
  const port = new URL(ctx.transport.origin).port
  return `http://${label}.localhost${port ? `:${port}` : ''}`
}
const SAME_ORIGIN = {'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors'}
const ORDERS = {schema: {fields: {item: 'string', visitor: 'string'}},
  public_methods: {create: {allowed_fields: ['item'], auto_fields: {visitor: '{cookie_key}'}}, list: {scope_by: 'visitor'}}}
const names = (list: {data: {item: string}}[]) => list.map((r) => r.data.item)

describeBothTransports('visitor ids are bound to their origin (issue 24 M3)', undefined, (ctx) => {
  it('setup: acme\'s orders behind two apps, mallory\'s app with a db of its own', async () => {
    expect((await ctx().call('POST', '/svc/dbs.json', {body: {db: {name: 'Orders', code: 'orders', ...ORDERS}}})).status).toBe(201)
    expect((await ctx().call('POST', '/svc/dbs.json', {as: 'mallory', body: {db: {name: 'Toss', code: 'toss', ...ORDERS}}})).status).toBe(201)
    for (const [as, code, db] of [['admin', 'shop-a', 'orders'], ['admin', 'shop-b', 'orders'], ['mallory', 'tosser', 'toss']]) {
      const app = await ctx().call('POST', '/svc/apps.json', {as, body: {app: {name: code, url_code: code, app_engine: 'html', css_engine: 'none',
        public: true, db_code: db, source_code: '<p>x</p>'}}})
      expect(app.status, app.text).toBe(201)
    }
  })

  const create = async (origin: string, item: string, cookie?: string) => {
    const r = await ctx().transport.fetch(`${origin}/svc/db/orders/create?data[item]=${item}`, {headers: {...SAME_ORIGIN, ...(cookie ? {cookie} : {})}})
    expect(r.status).toBe(201)
    return {cookie: r.headers.getSetCookie().find((l) => l.startsWith('svc_visitor='))?.split(';')[0]}
  }
  const list = async (origin: string, cookie: string) =>
    names(await (await ctx().transport.fetch(`${origin}/svc/db/orders/list`, {headers: {...SAME_ORIGIN, cookie}})).json())

  it('a visitor cookie minted on app A\'s origin is a new visitor on app B\'s origin, even for the same db', async () => {
    const a = host(ctx(), 'shop-a')
    const b = host(ctx(), 'shop-b')
    const minted = (await create(a, 'bike')).cookie!
    expect(minted).toBeDefined()
    expect(await list(a, minted)).toEqual(['bike'])
    expect(await list(b, minted)).toEqual([])
    // B does not take it: its create issues a cookie of its own.
    const onB = await create(b, 'lamp', minted)
    expect(onB.cookie).toBeDefined()
    expect(await list(b, onB.cookie!)).toEqual(['lamp'])
    expect(await list(a, minted)).toEqual(['bike'])
    // Nor does the main origin take an app origin's cookie, or the reverse.
    const main = await ctx().transport.fetch('/svc/db/orders/list', {headers: {...SAME_ORIGIN, cookie: minted}})
    expect(names(await main.json())).toEqual([])
  })

  it('a cookie tossed by another account\'s app (sent as if set for the parent domain) gives its author nobody\'s orders', async () => {
    const tosser = host(ctx(), 'tosser')
    const made = await ctx().transport.fetch(`${tosser}/svc/db/toss/create?data[item]=bait`, {headers: SAME_ORIGIN})
    const tossed = made.headers.getSetCookie().find((l) => l.startsWith('svc_visitor='))!.split(';')[0]!
    // The victim's browser sends the tossed cookie to acme's shop and orders there.
    const victim = await create(host(ctx(), 'shop-a'), 'ring', tossed)
    expect(victim.cookie).toBeDefined()
    // The tosser replays its cookie on the shop: nothing.
    expect(await list(host(ctx(), 'shop-a'), tossed)).toEqual([])
    expect(await list(host(ctx(), 'shop-a'), victim.cookie!)).toEqual(['ring'])
  })
})

describe('over https (--apps-url, behind a TLS proxy) the cookies are __Host- cookies (issue 24 M3)', () => {
  for (const name of TRANSPORTS) {
    it(`[${name}] __Host-svc_visitor and __Host-svc_app_session; a plain-named (parent-domain) cookie is not read`, async () => {
      const world = await createWorld(undefined, {appsUrl: 'https://{code}.apps.example.test', publicUrl: 'https://svc.example.test', trustProxy: true})
      const transport = await openTransport(name, world.app)
      try {
        const call = makeCall(world, transport)
        expect((await call('POST', '/svc/dbs.json', {body: {db: {name: 'Orders', code: 'orders', ...ORDERS}}})).status).toBe(201)
        for (const code of ['deal', 'deal-b']) {
          const app = await call('POST', '/svc/apps.json', {body: {app: {name: code, url_code: code, app_engine: 'html', css_engine: 'none',
            db_code: 'orders', source_code: '<p>deal</p>', public: code === 'deal-b'}}})
          expect(app.status, app.text).toBe(201)
        }
        const port = new URL(transport.origin).port
        const at = (label: string, path: string) => `http://${label}.apps.example.test${port ? `:${port}` : ''}${path}`
        const https = {'x-forwarded-proto': 'https', ...SAME_ORIGIN}
        const made = await transport.fetch(at('deal', '/svc/db/orders/create?data[item]=bike'), {headers: https})
        const line = made.headers.getSetCookie()[0]!
        expect(line).toMatch(/^__Host-svc_visitor=[^;]+;/)
        expect(line).toMatch(/; Secure/i)
        expect(line).toMatch(/; Path=\//i)
        expect(line).not.toMatch(/domain=/i)
        const value = line.split(';')[0]!.slice('__Host-svc_visitor='.length)
        const listed = async (label: string, cookie: string) =>
          names(await (await transport.fetch(at(label, '/svc/db/orders/list'), {headers: {...https, cookie}})).json())
        expect(await listed('deal', `__Host-svc_visitor=${value}`)).toEqual(['bike'])
        // The same value under the name a sibling host can set for the parent domain: not read on https.
        expect(await listed('deal', `svc_visitor=${value}`)).toEqual([])
        // Bound to its origin: on another app's origin it is a new visitor.
        expect(await listed('deal-b', `__Host-svc_visitor=${value}`)).toEqual([])
        // The app sign-in is a __Host- cookie too, and only that name counts.
        const session = await world.store.accounts.createToken(world.users.admin!.id, 'session', 3600)
        const hand = await transport.fetch('/a/deal', {headers: {cookie: `svc_session=${session}`}, redirect: 'manual'})
        const location = new URL(hand.headers.get('location')!)
        const signin = await transport.fetch(at('deal', location.pathname + location.search), {redirect: 'manual', headers: {'x-forwarded-proto': 'https'}})
        const appCookie = signin.headers.get('set-cookie')!
        expect(appCookie).toMatch(/^__Host-svc_app_session=[^;]+;.*Secure.*SameSite=None/i)
        expect(appCookie).not.toMatch(/domain=/i)
        const token = appCookie.split(';')[0]!.split('=')[1]!
        const page = (cookie: string) => transport.fetch(at('deal', '/'), {headers: {cookie, 'x-forwarded-proto': 'https'}, redirect: 'manual'})
        expect((await page(`__Host-svc_app_session=${token}`)).status).toBe(200)
        expect((await page(`svc_app_session=${token}`)).status).toBe(302)
      } finally {
        await transport.close()
        await world.close()
      }
    })
  }
})
