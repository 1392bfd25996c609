// Apps on their own origin (docs/security.md "Apps on their own origin"): what answers on an app's
// host, which credentials count there, the hand-over from `/a/:key`, and that the console session
// never reaches nor counts on an app origin. Both transports; app hosts are reached with their Host.
import {describe, expect, it} from 'vitest'
import {createApp} from '../../src/http/app.js'
import {createServices} from '../../src/services/index.js'
import {parseAppsUrl} from '../../src/http/app-origin/hosts.js'
import {createWorld, openTransport, TRANSPORTS} from '../helpers/world.js'
import {describeBothTransports, makeCall, type Ctx} from '../helpers/scenarios.js'
import {openApp} from '../helpers/app-origin.js'
import {createFixtures, MARKER, type Fixtures} from './fixtures.js'

const host = (ctx: Ctx, label: string) => {
  const port = new URL(ctx.transport.origin).port
  return `http://${label}.localhost${port ? `:${port}` : ''}`
}

describeBothTransports('app origins', undefined, (ctx) => {
  let f: Fixtures
  let adminSession: string
  let openAppId: string

  it('setup', async () => {
    f = await createFixtures(ctx())
    adminSession = `svc_session=${await ctx().world.store.accounts.createToken(ctx().world.users.admin!.id, 'session', 3600)}`
    const open = await ctx().call('POST', '/svc/apps.json', {as: 'mallory', body: {app: {name: 'Cats', url_code: 'cats', app_engine: 'html',
      css_engine: 'none', public: true, source_code: '<p>cats</p>'}}})
    expect(open.status, open.text).toBe(201)
    openAppId = open.json.id
  })

  it('/a/:key on the main origin hands over to the app origin; the page and its CSP live there only', async () => {
    const r = await ctx().transport.fetch('/a/cats?x=1', {redirect: 'manual'})
    expect(r.status).toBe(302)
    expect(r.headers.get('location')).toBe(`${host(ctx(), 'cats')}/?x=1`)
    const byId = await ctx().transport.fetch(`/a/${openAppId}`, {redirect: 'manual'})
    expect(byId.headers.get('location')).toBe(`${host(ctx(), 'cats')}/`)
    const page = await ctx().transport.fetch(`${host(ctx(), 'cats')}/`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<p>cats</p>')
    const csp = page.headers.get('content-security-policy')!
    expect(csp).toContain("connect-src 'self'")
    expect(csp).toContain('frame-ancestors')
    expect(csp).toContain("'unsafe-inline'")
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    // The id works as a host label too; an unknown label is a 404.
    expect((await ctx().transport.fetch(`${host(ctx(), openAppId)}/`)).status).toBe(200)
    expect((await ctx().transport.fetch(`${host(ctx(), 'no-such-app')}/`)).status).toBe(404)
  })

  it('on an app origin every route but the app\'s own is 404, whatever credential comes along', async () => {
    const bearer = {authorization: `Bearer ${ctx().world.users.admin!.token}`}
    for (const [method, path] of [
      ['GET', '/svc/prompts.json'], ['GET', '/svc/dbs.json'], ['POST', '/svc/dbs.json'], ['GET', '/svc/apps.json'],
      ['GET', `/svc/resources/${f.connector}.json`], ['PATCH', `/svc/resources/${f.connector}.json`], ['GET', '/toolkit/dashboards.json'],
      ['GET', '/account/crons.json'], ['GET', '/svc/me.json'], ['GET', '/svc/login'], ['POST', '/svc/login'], ['POST', '/svc/logout'],
      ['GET', '/console/assets/x.js'], ['GET', '/favicon.ico'], ['GET', '/svc/engines.json'], ['GET', `/a/${f.app}`], ['GET', `/svc/prompt/acme_prompt.md`],
      ['POST', `/svc/apps/${f.app}/action/open`], ['GET', `/svc/dbs/${f.db}/records.json`],
    ] as const) {
      for (const headers of [{}, bearer, {cookie: adminSession}]) {
        const r = await ctx().transport.fetch(`${host(ctx(), 'cats')}${path}`, {method, headers, body: method === 'GET' ? undefined : '{}'})
        expect(r.status, `${method} ${path} ${JSON.stringify(Object.keys(headers))}`).toBe(404)
        expect(await r.text()).not.toContain(MARKER)
      }
    }
  })

  it('the console session and API tokens count nowhere on an app origin, not even on the app of their own account', async () => {
    const acmeApp = host(ctx(), 'acme-app')
    // Private app page: not served to a session cookie or a bearer; the visitor goes back to the main origin.
    for (const headers of [{cookie: adminSession}, {authorization: `Bearer ${ctx().world.users.admin!.token}`}]) {
      const page = await ctx().transport.fetch(`${acmeApp}/`, {headers, redirect: 'manual'})
      expect(page.status).toBe(302)
      expect(page.headers.get('location')).toMatch(new RegExp(`/a/${f.app}$`))
      const action = await ctx().transport.fetch(`${acmeApp}/svc/apps/${f.app}/action/note`, {method: 'POST', headers, body: '{}'})
      expect(action.status).toBe(401)
    }
  })

  it('a member is handed over with a one-use token for an app-scoped cookie that does nothing else', async () => {
    const opened = await openApp(ctx().transport, '/a/acme-app', {cookie: adminSession})
    expect(opened.res.status).toBe(200)
    expect(opened.url).toBe(`${host(ctx(), 'acme-app')}/`)
    expect(opened.html).toContain(MARKER)
    const context = JSON.parse(/window\.SvcAppContext = (.*?);<\/script>/.exec(opened.html)![1]!)
    expect(context.user.login).toBe('admin')
    // The app sign-in, and the marker of the app this browser saw there (service-worker.test.ts).
    expect(opened.cookie.split('; ').map((c) => c.split('=')[0]).sort()).toEqual(['svc_app', 'svc_app_session'])
    const appCookie = {cookie: opened.cookie}
    // Its private action works with it...
    const action = await ctx().transport.fetch(`${host(ctx(), 'acme-app')}/svc/apps/${f.app}/action/note`, {method: 'POST', headers: appCookie, body: '{}'})
    expect(action.status).toBe(200)
    expect((await action.json()).status).toBe('finished')
    // ...and nothing else: not the main origin (cookie or bearer), not another app's origin.
    const rawToken = /svc_app_session=([^;]+)/.exec(opened.cookie)![1]!
    for (const headers of [appCookie, {authorization: `Bearer ${rawToken}`}, {cookie: `svc_session=${rawToken}`}]) {
      expect((await ctx().transport.fetch('/svc/prompts.json', {headers})).status).toBe(401)
    }
    const other = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'Second', url_code: 'second', app_engine: 'html', css_engine: 'none',
      source_code: '<p>2</p>', actions: [{action: 'note', flow_code: 'note', public: false}]}}})
    const second = await ctx().transport.fetch(`${host(ctx(), 'second')}/svc/apps/${other.json.id}/action/note`, {method: 'POST', headers: appCookie, body: '{}'})
    expect(second.status).toBe(401)
    expect((await ctx().transport.fetch(`${host(ctx(), 'second')}/`, {headers: appCookie, redirect: 'manual'})).status).toBe(302)
    // The hand-over token works once.
    const first = await ctx().transport.fetch('/a/acme-app', {headers: {cookie: adminSession}, redirect: 'manual'})
    const signin = first.headers.get('location')!
    expect(signin).toMatch(/\/_svc\/signin\?token=/)
    const used = await ctx().transport.fetch(signin, {redirect: 'manual'})
    expect(used.headers.getSetCookie().join()).toContain('svc_app_session=')
    const again = await ctx().transport.fetch(signin, {redirect: 'manual'})
    expect(again.headers.getSetCookie()).toEqual([])
    // A hand-over token of one app signs in nowhere else.
    const forSecond = (await ctx().transport.fetch('/a/acme-app', {headers: {cookie: adminSession}, redirect: 'manual'})).headers.get('location')!
    const stolen = new URL(forSecond)
    const elsewhere = await ctx().transport.fetch(`${host(ctx(), 'second')}${stolen.pathname}${stolen.search}`, {redirect: 'manual'})
    expect(elsewhere.headers.getSetCookie()).toEqual([])
  })

  it('a member of another account is an anonymous visitor of a public app, and is sent to sign in for a private one', async () => {
    const mallory = `svc_session=${await ctx().world.store.accounts.createToken(ctx().world.users.mallory!.id, 'session', 3600)}`
    const foreign = await ctx().transport.fetch('/a/acme-app', {headers: {cookie: mallory}, redirect: 'manual'})
    expect(foreign.status).toBe(302)
    expect(foreign.headers.get('location')).toBe('/svc/login?next=%2Fa%2Facme-app')
    const cats = await openApp(ctx().transport, '/a/cats', {cookie: adminSession})
    expect(cats.res.status).toBe(200)
    expect(JSON.parse(/window\.SvcAppContext = (.*?);<\/script>/.exec(cats.html)![1]!).user).toBeNull()
    expect(cats.cookie).not.toContain('svc_app_session')
  })

  it('an app origin reaches only its own account\'s public dbs and connectors', async () => {
    // acme's public db and public connector method from mallory's app origin: 404.
    expect((await ctx().transport.fetch(`${host(ctx(), 'cats')}/svc/db/${f.dbCode}/list`)).status).toBe(404)
    // (An unknown connector asks an anonymous caller to sign in, as on the main origin.)
    expect([401, 404]).toContain((await ctx().transport.fetch(`${host(ctx(), 'cats')}/svc/connector/weather/current`)).status)
    // From acme's own app origin its public connector method is called (the fixture's upstream is a closed port: 502).
    expect((await ctx().transport.fetch(`${host(ctx(), 'acme-app')}/svc/connector/weather/current`)).status).toBe(502)
    // From acme's own app origin the public db answers (anonymously).
    expect((await ctx().transport.fetch(`${host(ctx(), 'acme-app')}/svc/db/${f.dbCode}/list`)).status).toBe(200)
  })

  it('visitor cookies are per app origin, and a request from another site does not carry them', async () => {
    const acme = host(ctx(), 'acme-app')
    const created = await ctx().transport.fetch(`${acme}/svc/db/${f.dbCode}/create`, {method: 'POST', body: JSON.stringify({data: {name: 'mine'}})})
    expect(created.status).toBe(201)
    const cookie = created.headers.getSetCookie()[0]!
    expect(cookie).toMatch(/^svc_visitor=/)
    expect(cookie).not.toMatch(/domain=/i)
    const jar = {cookie: cookie.split(';')[0]!}
    const mine = await (await ctx().transport.fetch(`${acme}/svc/db/${f.dbCode}/list`, {headers: {...jar, 'sec-fetch-site': 'same-origin'}})).json()
    expect(mine.map((r: {data: {name: string}}) => r.data.name)).toEqual(['mine'])
    // The same cookie sent by a page of a sibling origin (another app) is ignored: a new visitor, no records.
    const crossSite = await ctx().transport.fetch(`${acme}/svc/db/${f.dbCode}/list`, {headers: {...jar, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors'}})
    expect(await crossSite.json()).toEqual([])
    const crossDelete = await ctx().transport.fetch(`${acme}/svc/db/${f.dbCode}/delete?id=${mine[0].id}`, {headers: {...jar, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors'}})
    // A write carried by the cookie from another site is refused outright (issue 24 M1; app-origin-writes.test.ts).
    expect(crossDelete.status).toBe(403)
    expect((await (await ctx().transport.fetch(`${acme}/svc/db/${f.dbCode}/list`, {headers: jar})).json()).length).toBe(1)
  })

  it('on the main origin the session counts only for its own pages, navigations and typed requests', async () => {
    const read = (headers: Record<string, string>) => ctx().transport.fetch('/svc/prompts.json', {headers: {cookie: adminSession, ...headers}})
    expect((await read({})).status).toBe(200)
    expect((await read({'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors'})).status).toBe(200)
    expect((await read({'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate'})).status).toBe(200)
    // An app's script on a sibling origin with credentials: 'include' — anonymous, whatever CORS would do.
    expect((await read({'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors'})).status).toBe(401)
    expect((await read({'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors'})).status).toBe(401)
    const write = await ctx().transport.fetch('/svc/dbs.json', {method: 'POST', headers: {cookie: adminSession, 'sec-fetch-site': 'same-site',
      'sec-fetch-mode': 'no-cors', 'content-type': 'text/plain'}, body: JSON.stringify({db: {name: 'pwn', code: 'pwn'}})})
    expect([401, 403]).toContain(write.status)
    expect((await ctx().call('GET', '/svc/dbs.json')).json.map((d: {code: string}) => d.code)).not.toContain('pwn')
  })

  it('url_codes and public db codes name one thing server-wide: a taken one is a 422', async () => {
    const app = await ctx().call('POST', '/svc/apps.json', {as: 'mallory', body: {app: {name: 'x', url_code: 'acme-app', app_engine: 'html', css_engine: 'none', source_code: 'x'}}})
    expect(app.status).toBe(422)
    expect(app.json).toEqual({url_code: ['has already been taken']})
    const fromName = await ctx().call('POST', '/svc/apps.json', {as: 'mallory', body: {app: {name: 'Acme app', app_engine: 'html', css_engine: 'none', source_code: 'x'}}})
    expect(fromName.status).toBe(201)
    expect(fromName.json.url_code).toBe('acme-app-2')
    const db = await ctx().call('POST', '/svc/dbs.json', {as: 'mallory', body: {db: {name: 'x', code: f.dbCode, public_methods: {create: true}}}})
    expect(db.status).toBe(422)
    expect(db.json).toEqual({code: ['has already been taken']})
    // A private db may share the code; it never receives public traffic.
    const quiet = await ctx().call('POST', '/svc/dbs.json', {as: 'mallory', body: {db: {name: 'x', code: f.dbCode}}})
    expect(quiet.status).toBe(201)
    const later = await ctx().call('PATCH', `/svc/dbs/${quiet.json.id}.json`, {as: 'mallory', body: {db: {public_methods: {create: true}}}})
    expect(later.status).toBe(422)
    const pub = await ctx().call('POST', `/svc/db/${f.dbCode}/create`, {as: null, body: {data: {name: 'to acme'}}})
    expect(pub.status).toBe(201)
    const acmeRecords = await ctx().call('GET', `/svc/dbs/${f.db}/records.json?limit=100`)
    expect(acmeRecords.json.some((r: {data: {name: string}}) => r.data.name === 'to acme')).toBe(true)
    // The first to claim a public code keeps it: mallory's newsletter, acme cannot take it.
    expect((await ctx().call('POST', '/svc/dbs.json', {as: 'mallory', body: {db: {name: 'n', code: 'newsletter', public_methods: {create: true}}}})).status).toBe(201)
    expect((await ctx().call('POST', '/svc/dbs.json', {body: {db: {name: 'n', code: 'newsletter', public_methods: {create: true}}}})).status).toBe(422)
  })

  it('console, login, JSON and error answers carry nosniff, a CSP and no framing', async () => {
    for (const path of ['/svc/login', '/svc/prompts.json', '/no-such-route', '/a/no-such-app']) {
      const r = await ctx().transport.fetch(path, {headers: {authorization: `Bearer ${ctx().world.users.admin!.token}`}})
      expect(r.headers.get('x-content-type-options'), path).toBe('nosniff')
      expect(r.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'")
      expect(r.headers.get('x-frame-options'), path).toBe('DENY')
    }
    const login = await ctx().transport.fetch('/svc/login')
    expect(login.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(login.headers.get('content-security-policy')).toContain("frame-src 'self' http://*.localhost:*")
  })
})

describe('--apps-url: apps on a deployment\'s own domain', () => {
  it('parses the template, or says what is wrong with it', () => {
    expect(parseAppsUrl('https://{code}.apps.example.com')).toEqual({protocol: 'https:', suffix: '.apps.example.com', port: ''})
    expect(parseAppsUrl('http://{code}.apps.test:8080')).toEqual({protocol: 'http:', suffix: '.apps.test', port: ':8080'})
    for (const bad of ['https://apps.example.com', 'https://apps.{code}.example.com', 'https://{code}.com', 'ftp://{code}.a.b',
      'https://{code}.apps.example.com/path', 'not a url {code}']) expect(() => parseAppsUrl(bad), bad).toThrow(/--apps-url/)
    expect(() => createApp({store: {} as never, services: createServices({} as never), systemPromptsDirs: [], appsUrl: 'https://{code}.apps.example.com'})).toThrow(/--public-url/)
  })

  for (const name of TRANSPORTS) {
    it(`[${name}] /a/ hands over to https://<code>.apps.example.test; that host serves the app, its sign-in cookie is Secure`, async () => {
      const world = await createWorld(undefined, {appsUrl: 'https://{code}.apps.example.test', publicUrl: 'https://svc.example.test', trustProxy: true})
      const transport = await openTransport(name, world.app)
      try {
        const call = makeCall(world, transport)
        const app = await call('POST', '/svc/apps.json', {body: {app: {name: 'Deal', url_code: 'deal', app_engine: 'html', css_engine: 'none', source_code: '<p>deal</p>'}}})
        expect(app.status).toBe(201)
        const session = await world.store.accounts.createToken(world.users.admin!.id, 'session', 3600)
        const hand = await transport.fetch('/a/deal', {headers: {cookie: `svc_session=${session}`}, redirect: 'manual'})
        const location = new URL(hand.headers.get('location')!)
        expect(location.origin).toBe('https://deal.apps.example.test')
        // Reach it as the TLS proxy would: plain http to the server with the app's Host and X-Forwarded-Proto.
        const port = new URL(transport.origin).port
        const at = (path: string) => `http://deal.apps.example.test${port ? `:${port}` : ''}${path}`
        const signin = await transport.fetch(at(location.pathname + location.search), {redirect: 'manual', headers: {'x-forwarded-proto': 'https'}})
        expect(signin.status).toBe(303)
        expect(signin.headers.get('set-cookie')).toMatch(/^__Host-svc_app_session=[^;]+;.*Secure.*SameSite=None/i)
        const cookie = signin.headers.get('set-cookie')!.split(';')[0]!
        const page = await transport.fetch(at('/'), {headers: {cookie, 'x-forwarded-proto': 'https'}})
        expect(page.status).toBe(200)
        expect(await page.text()).toContain('<p>deal</p>')
        expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'self' https://svc.example.test")
        // A private app without the cookie goes back to the main origin of --public-url.
        const back = await transport.fetch(at('/'), {redirect: 'manual'})
        expect(back.headers.get('location')).toBe(`https://svc.example.test/a/${app.json.id}`)
        // `*.localhost` is not an app origin under --apps-url; the main origin still serves the API.
        expect((await transport.fetch(`http://deal.localhost${port ? `:${port}` : ''}/`)).status).not.toBe(200)
        expect((await call('GET', '/svc/apps.json')).status).toBe(200)
      } finally {
        await transport.close()
        await world.close()
      }
    })
  }
})
