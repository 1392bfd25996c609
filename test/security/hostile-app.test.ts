// Done-when of issue 15, in Debian's Chromium: a console user of account Y (acme) is signed in; a
// hostile public app of account X (other) runs in the same browser and tries, from inside its page,
// every fetch it can think of against Y — relative, absolute to the main origin, with
// credentials: 'include', no-cors writes, another app's origin — and gets nothing, changes nothing.
// The same app still works: its public db methods (scoped per visitor), its public action. Y's own
// private app gets its SvcAppContext user and runs its private action. The attack runs twice: with
// the app page's CSP as served, and with CSP bypassed, so the server's own defences are shown alone.
import type {Page} from 'playwright-core'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {chromiumNotice, describeWithChromium, launchChromium} from '../helpers/browser.js'
import {makeCall} from '../helpers/scenarios.js'
import {createWorld, overHttp, type Transport, type World} from '../helpers/world.js'
import {CONNECTOR_SECRET, MARKER} from './fixtures.js'

const HOSTILE = (main: string, yApp: string, connectorId: number) => `<!doctype html><html><head><title>Cats</title></head><body>
<p id="state">running</p>
<script>
(async () => {
  const results = {}
  const attempt = async (name, url, init) => {
    try {
      const r = await fetch(url, init)
      let body = ''
      try { body = await r.text() } catch (e) {}
      results[name] = {status: r.status, type: r.type, body: body.slice(0, 4000)}
    } catch (e) { results[name] = {error: String(e)} }
  }
  const inc = {credentials: 'include'}
  const send = (method, body, extra) => ({method, credentials: 'include', headers: {'content-type': 'text/plain'}, body: JSON.stringify(body), ...extra})
  const main = ${JSON.stringify(main)}
  const yApp = ${JSON.stringify(yApp)}
  for (const [prefix, base] of [['rel', ''], ['abs', main]]) {
    await attempt(prefix + '-prompts', base + '/svc/prompts.json', inc)
    await attempt(prefix + '-prompt-md', base + '/svc/prompt/y_prompt.md', inc)
    await attempt(prefix + '-dbs', base + '/svc/dbs.json', inc)
    await attempt(prefix + '-resources', base + '/svc/resources.json', inc)
    await attempt(prefix + '-me', base + '/svc/me.json', inc)
    await attempt(prefix + '-create-db', base + '/svc/dbs.json', send('POST', {db: {name: 'pwn', code: 'pwn_' + prefix}}))
    await attempt(prefix + '-create-db-nocors', base + '/svc/dbs.json', send('POST', {db: {name: 'pwn', code: 'pwn_nc_' + prefix}}, {mode: 'no-cors'}))
    await attempt(prefix + '-repoint', base + '/svc/resources/${connectorId}.json', send('PATCH', {resource: {url: 'http://127.0.0.1:1/evil'}}, {mode: 'no-cors'}))
    await attempt(prefix + '-prompt', base + '/svc/prompts.json', send('POST', {prompt: {name: 'pwn', code: 'pwn_' + prefix, content: 'pwned'}}, {mode: 'no-cors'}))
    await attempt(prefix + '-y-db', base + '/svc/db/ydb/list', inc)
  }
  await attempt('other-app-list', yApp + '/svc/db/ydb/list', inc)
  await attempt('other-app-delete', yApp + '/svc/db/ydb/delete?id=1', {credentials: 'include', mode: 'no-cors'})
  // What the app is for still works.
  const json = (body) => ({method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)})
  await attempt('own-create', '/svc/db/xdb/create', json({data: {name: 'x visitor'}}))
  await attempt('own-list', '/svc/db/xdb/list', {})
  await attempt('own-action', '/svc/apps/' + window.SvcAppContext.app.id + '/action/hello', json({who: 'cat'}))
  results.context = window.SvcAppContext
  results.cookie = document.cookie
  window.__results = results
  document.getElementById('state').textContent = 'done'
})()
</script></body></html>`

const VISITOR_APP = `<!doctype html><html><body><p id="state">running</p><script>
(async () => {
  const post = (path, body) => fetch(path, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)}).then((r) => r.json())
  await post('/svc/db/ydb/create', {data: {name: 'y visitor ${MARKER}'}})
  const list = await fetch('/svc/db/ydb/list').then((r) => r.json())
  window.__results = {list}
  document.getElementById('state').textContent = 'done'
})()
</script></body></html>`

const PRIVATE_APP = `<!doctype html><html><body><p id="state">running</p><script>
(async () => {
  const r = await fetch('/svc/apps/' + window.SvcAppContext.app.id + '/action/ping', {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'})
  window.__results = {context: window.SvcAppContext, action: {status: r.status, body: await r.json()}}
  document.getElementById('state').textContent = 'done'
})()
</script></body></html>`

chromiumNotice()

describeWithChromium('a hostile app in a real browser (Chromium)', {timeout: 120_000}, () => {
  let world: World
  let http: Transport
  let main: string
  const ids: Record<string, any> = {}

  beforeAll(async () => {
    world = await createWorld()
    http = await overHttp(world.app)
    const port = new URL(http.origin).port
    // `localhost` is the main origin an app origin sends visitors back to (docs/security.md).
    main = `http://localhost:${port}`
    const call = makeCall(world, http)
    const ok = async (as: string, method: string, path: string, body: unknown) => {
      const r = await call(method, path, {as, body})
      expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300)
      return r.json
    }
    // Account Y (acme): a prompt, a public db scoped per visitor, a connector with a secret, a public and a private app.
    await ok('admin', 'POST', '/svc/prompts.json', {prompt: {name: `Y ${MARKER}`, code: 'y_prompt', content: `Y body ${MARKER}`}})
    await ok('admin', 'POST', '/svc/dbs.json', {db: {name: 'Y db', code: 'ydb', schema: {fields: {name: 'string', visitor: 'string'}},
      public_methods: {create: {allowed_fields: ['name'], auto_fields: {visitor: '{cookie_key}'}}, list: {scope_by: 'visitor'}, delete: {scope_by: 'visitor'}}}})
    ids.connector = (await ok('admin', 'POST', '/svc/resources.json', {resource: {kind: 'svc/custom_connector', code: 'ysvc', name: 'Y svc',
      url: 'http://127.0.0.1:9', secret_token: CONNECTOR_SECRET, fields: {methods: []}}})).id
    await ok('admin', 'POST', '/svc/resources.json', {resource: {kind: 'svc/custom_flow', code: 'ping', name: 'ping',
      fields: {program: [{type: 'mutation', set: {pong: 'yes'}}]}}})
    await ok('admin', 'POST', '/svc/apps.json', {app: {name: 'Y visitors', url_code: 'yapp', app_engine: 'html', css_engine: 'none', public: true, db_code: 'ydb',
      source_code: VISITOR_APP}})
    await ok('admin', 'POST', '/svc/apps.json', {app: {name: 'Y private', url_code: 'ypriv', app_engine: 'html', css_engine: 'none', public: false,
      source_code: PRIVATE_APP, actions: [{action: 'ping', flow_code: 'ping', public: false}]}})
    // Account X (other): the hostile app, with its own db and a public action.
    await ok('mallory', 'POST', '/svc/dbs.json', {db: {name: 'X db', code: 'xdb', schema: {fields: {name: 'string', visitor: 'string'}},
      public_methods: {create: {allowed_fields: ['name'], auto_fields: {visitor: '{cookie_key}'}}, list: {scope_by: 'visitor'}}}})
    await ok('mallory', 'POST', '/svc/resources.json', {resource: {kind: 'svc/custom_flow', code: 'hello', name: 'hello',
      fields: {program: [{type: 'mutation', set: {greeting: 'hello {who}'}}]}}})
    await ok('mallory', 'POST', '/svc/apps.json', {app: {name: 'Cats', url_code: 'cats', app_engine: 'html', css_engine: 'none', public: true, db_code: 'xdb',
      source_code: HOSTILE(main, `http://yapp.localhost:${port}`, ids.connector), actions: [{action: 'hello', flow_code: 'hello', public: true}]}})
  }, 180_000)

  afterAll(async () => {
    await http?.close()
    await world?.close()
  })

  const done = async (page: Page) => {
    await page.locator('#state', {hasText: 'done'}).waitFor({timeout: 60_000})
    return page.evaluate(() => (window as unknown as {__results: any}).__results)
  }

  for (const bypassCSP of [false, true]) {
    it(`Y's signed-in user opens X's app: nothing of Y is read or changed, X's app works (CSP ${bypassCSP ? 'bypassed' : 'as served'})`, async () => {
      const chrome = await launchChromium({bypassCSP})
      try {
        const page = await chrome.context.newPage()
        // Y's admin signs in to the console.
        await page.goto(`${main}/svc/login?next=/svc/me.json`)
        await page.fill('input[name=token]', world.users.admin!.token)
        await page.click('button[type=submit]')
        await page.waitForURL(`${main}/svc/me.json`)
        expect(await page.textContent('body')).toContain('"login":"admin"')
        // An anonymous visitor record in Y's public app, from this browser.
        await page.goto(`${main}/a/yapp`)
        const y = await done(page)
        expect(new URL(page.url()).hostname).toBe('yapp.localhost')
        expect(y.list.map((r: any) => r.data.name)).toEqual([`y visitor ${MARKER}`])

        // The hostile app.
        await page.goto(`${main}/a/cats`)
        const r = await done(page)
        expect(new URL(page.url()).hostname).toBe('cats.localhost')
        const leaked = JSON.stringify(r)
        for (const secret of [MARKER, world.users.admin!.token, CONNECTOR_SECRET, '"login":"admin"']) expect(leaked).not.toContain(secret)
        // Relative: the app origin answers 404 to everything that is not the app's own.
        for (const name of ['prompts', 'prompt-md', 'dbs', 'resources', 'me', 'create-db', 'y-db', 'repoint', 'prompt']) {
          expect(r[`rel-${name}`]?.status ?? r[`rel-${name}`]?.type, name).not.toBe(200)
        }
        for (const name of ['prompts', 'prompt-md', 'dbs', 'resources', 'me', 'create-db', 'y-db']) expect(r[`rel-${name}`].status, name).toBe(404)
        // Absolute to the main origin with credentials: refused (CSP) or unreadable and anonymous (server).
        for (const name of ['prompts', 'prompt-md', 'dbs', 'resources', 'me', 'create-db', 'y-db']) {
          const got = r[`abs-${name}`]
          expect(got.error ?? got.status, name).not.toBe(200)
        }
        expect(r['abs-prompts'].error).toMatch(/TypeError/)
        expect(r['other-app-list'].error).toMatch(/TypeError/)
        // The app itself works: its db (this visitor's records only), its action, its context (no user: Y's user is not X's).
        expect(r['own-create'].status).toBe(201)
        expect(JSON.parse(r['own-list'].body).map((x: any) => x.data.name)).toEqual(['x visitor'])
        expect(r['own-action'].status).toBe(200)
        expect(JSON.parse(r['own-action'].body)).toMatchObject({status: 'finished', data: {greeting: 'hello cat'}})
        expect(r.context.user).toBeNull()
        expect(r.cookie).toBe('')

        // Nothing of Y changed: no db, no prompt, the connector's url, the visitor's record.
        const call = makeCall(world, http)
        const dbs = (await call('GET', '/svc/dbs.json')).json.map((d: any) => d.code)
        expect(dbs.filter((c: string) => c.startsWith('pwn'))).toEqual([])
        expect((await call('GET', '/svc/prompts.json')).json.map((p: any) => p.code).filter((c: string) => c.startsWith('pwn'))).toEqual([])
        expect((await call('GET', `/svc/resources/${ids.connector}.json`)).json.url).toBe('http://127.0.0.1:9')
        const ydb = (await call('GET', '/svc/dbs.json')).json.find((d: any) => d.code === 'ydb')
        const records = (await call('GET', `/svc/dbs/${ydb.id}/records.json`)).json
        expect(records.filter((x: any) => x.data.name === `y visitor ${MARKER}`).length).toBeGreaterThan(0)

        // Y's own private app: handed over with the app-scoped sign-in; the context names the user; the private action runs.
        await page.goto(`${main}/a/ypriv`)
        const p = await done(page)
        expect(new URL(page.url()).hostname).toBe('ypriv.localhost')
        expect(p.context.user).toMatchObject({login: 'admin', role: 'admin'})
        expect(p.action).toMatchObject({status: 200, body: {status: 'finished', data: {pong: 'yes'}}})
        // The console session cookie lives on the main origin only; each app origin has its own cookies.
        const cookies = await chrome.context.cookies()
        const where = (name: string) => cookies.filter((c) => c.name === name).map((c) => c.domain).sort()
        expect(where('svc_session')).toEqual(['localhost'])
        expect(where('svc_app_session')).toEqual(['yapp.localhost', 'ypriv.localhost'])
        expect(where('svc_visitor')).toEqual(['cats.localhost', 'yapp.localhost'])
        await page.close()
      } finally {
        await chrome.close()
      }
    })
  }
})
