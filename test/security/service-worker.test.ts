// Issue 24 M2: a service worker would outlive its app (and serve its pages after the url_code changed
// hands). App origins refuse a service worker's script (a registration or an update check: 403, not
// JavaScript, never `Service-Worker-Allowed`) and answer `Clear-Site-Data: "cache", "storage"` when the
// browser's marker names another app than the one now at the origin (or none), and on a navigation to
// an origin whose app is gone. HTTP on both transports, then Debian's Chromium.
import {afterAll, beforeAll, expect, it} from 'vitest'
import {chromiumNotice, describeWithChromium, launchChromium} from '../helpers/browser.js'
import {describeBothTransports, makeCall, type Ctx} from '../helpers/scenarios.js'
import {openApp} from '../helpers/app-origin.js'
import {createWorld, overHttp, type Transport, type World} from '../helpers/world.js'

const host = (ctx: Ctx, label: string) => {
  const port = new URL(ctx.transport.origin).port
  return `http://${label}.localhost${port ? `:${port}` : ''}`
}
const NAVIGATE = {'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document'}
/** What Chromium sends for a service worker's script (register() and update checks). */
const SW_SCRIPT = {'service-worker': 'script', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'same-origin', 'sec-fetch-dest': 'serviceworker'}
const SW_SOURCE = `if (self.document) document.body.textContent = 'page'; else self.addEventListener('fetch', () => {})`

describeBothTransports('app origins refuse service workers and clear what a former app left (issue 24 M2)', undefined, (ctx) => {
  let js = ''
  let appId = ''

  it('a service worker\'s script is refused (403, JSON, clears the origin\'s storage); the same script loads as a page script', async () => {
    const app = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'Worker', url_code: 'worker', app_engine: 'js', css_engine: 'none',
      public: true, source_code: SW_SOURCE}}})
    expect(app.status, app.text).toBe(201)
    appId = app.json.id
    const opened = await openApp(ctx().transport, '/a/worker')
    js = opened.js!
    expect(js).toMatch(/\/app\.[0-9a-f]{16}\.js$/)
    const plain = await ctx().transport.fetch(js)
    expect(plain.status).toBe(200)
    expect(plain.headers.get('content-type')).toMatch(/^text\/javascript/)
    for (const path of [new URL(js).pathname, '/', '/_svc/lib/tailwind-browser.js', '/sw.js']) {
      for (const headers of [SW_SCRIPT, {'service-worker': 'script'}, {'sec-fetch-dest': 'serviceworker'}]) {
        const r = await ctx().transport.fetch(`${host(ctx(), 'worker')}${path}`, {headers})
        expect(r.status, `${path} ${JSON.stringify(headers)}`).toBe(403)
        expect(r.headers.get('content-type')).toMatch(/^application\/json/)
        expect(r.headers.get('service-worker-allowed')).toBeNull()
        expect(r.headers.get('clear-site-data')).toBe('"cache", "storage"')
        expect((await r.json()).error).toMatch(/service workers are not allowed/)
      }
    }
    expect(plain.headers.get('service-worker-allowed')).toBeNull()
  })

  it('the page clears the origin\'s data for a browser that knew another app there, or none, and marks it', async () => {
    const first = await ctx().transport.fetch(`${host(ctx(), 'worker')}/`, {headers: NAVIGATE})
    expect(first.status).toBe(200)
    expect(first.headers.get('clear-site-data')).toBe('"cache", "storage"')
    const marker = first.headers.getSetCookie().find((l) => l.startsWith('svc_app='))!
    expect(marker).toMatch(new RegExp(`^svc_app=${appId};`))
    expect(marker).toMatch(/HttpOnly/)
    const cookie = marker.split(';')[0]!
    // The same app again: nothing is cleared, nothing is set.
    const again = await ctx().transport.fetch(`${host(ctx(), 'worker')}/`, {headers: {...NAVIGATE, cookie}})
    expect(again.headers.get('clear-site-data')).toBeNull()
    expect(again.headers.getSetCookie()).toEqual([])
    // The app is deleted: a navigation to its origin clears what it left.
    expect((await ctx().call('DELETE', `/svc/apps/${appId}.json`)).status).toBe(204)
    const gone = await ctx().transport.fetch(`${host(ctx(), 'worker')}/`, {headers: {...NAVIGATE, cookie}})
    expect(gone.status).toBe(404)
    expect(gone.headers.get('clear-site-data')).toBe('"cache", "storage"')
    // Another account takes the url_code: the browser that knew the former app gets its data cleared.
    const taken = await ctx().call('POST', '/svc/apps.json', {as: 'mallory', body: {app: {name: 'Taken', url_code: 'worker', app_engine: 'html',
      css_engine: 'none', public: true, source_code: '<p>new owner</p>'}}})
    expect(taken.status, taken.text).toBe(201)
    const handed = await ctx().transport.fetch(`${host(ctx(), 'worker')}/`, {headers: {...NAVIGATE, cookie}})
    expect(await handed.text()).toContain('new owner')
    expect(handed.headers.get('clear-site-data')).toBe('"cache", "storage"')
    expect(handed.headers.getSetCookie().find((l) => l.startsWith('svc_app='))).toMatch(new RegExp(`^svc_app=${taken.json.id};`))
  })
})

const OLD_APP = `<!doctype html><html><body><p id="state">running</p><script>
localStorage.setItem('secret', 'left by the former app')
document.getElementById('state').textContent = 'done'
</script></body></html>`
const NEW_APP = `<!doctype html><html><body><p id="state">running</p><script>
window.__results = {secret: localStorage.getItem('secret')}
document.getElementById('state').textContent = 'done'
</script></body></html>`
const WORKER_APP = `if (self.document) {
  (async () => {
    const script = document.querySelector('script[src^="/app."]').src
    let registered
    try { await navigator.serviceWorker.register(script, {scope: '/'}); registered = 'yes' } catch (e) { registered = String(e) }
    const count = (await navigator.serviceWorker.getRegistrations()).length
    window.__results = {registered, count}
    const p = document.createElement('p'); p.id = 'state'; p.textContent = 'done'; document.body.append(p)
  })()
} else {
  self.addEventListener('fetch', (event) => event.respondWith(new Response('served by the worker', {headers: {'content-type': 'text/html'}})))
}`

chromiumNotice()

describeWithChromium('service workers and a url_code that changes hands, in Chromium (issue 24 M2)', {timeout: 120_000}, () => {
  let world: World
  let http: Transport
  let main: string

  beforeAll(async () => {
    world = await createWorld()
    http = await overHttp(world.app)
    main = `http://localhost:${new URL(http.origin).port}`
  }, 180_000)

  afterAll(async () => {
    await http?.close()
    await world?.close()
  })

  const results = async (page: import('playwright-core').Page) => {
    await page.locator('#state', {hasText: 'done'}).waitFor({timeout: 60_000})
    return page.evaluate(() => (window as unknown as {__results: any}).__results)
  }

  it('an app cannot register a service worker from its bundle', async () => {
    const call = makeCall(world, http)
    const app = await call('POST', '/svc/apps.json', {as: 'mallory', body: {app: {name: 'SW', url_code: 'swapp', app_engine: 'js', css_engine: 'none',
      public: true, source_code: WORKER_APP}}})
    expect(app.status, app.text).toBe(201)
    const chrome = await launchChromium()
    try {
      const page = await chrome.context.newPage()
      await page.goto(`${main}/a/swapp`)
      const r = await results(page)
      // (Chromium says TypeError for the 403, or AbortError when the Clear-Site-Data of the answer stops it first.)
      expect(r.registered).toMatch(/Error/)
      expect(r.count).toBe(0)
      // A second visit is served by the server, not by a worker.
      await page.goto(`${main}/a/swapp`)
      expect(await page.textContent('body')).not.toContain('served by the worker')
    } finally {
      await chrome.close()
    }
  })

  it('what a deleted app left in a browser is gone for the next owner of its url_code', async () => {
    const call = makeCall(world, http)
    const old = await call('POST', '/svc/apps.json', {body: {app: {name: 'Old', url_code: 'handed', app_engine: 'html', css_engine: 'none',
      public: true, source_code: OLD_APP}}})
    expect(old.status, old.text).toBe(201)
    const chrome = await launchChromium()
    try {
      const page = await chrome.context.newPage()
      await page.goto(`${main}/a/handed`)
      await results(page).catch(() => undefined)
      expect(await page.evaluate(() => localStorage.getItem('secret'))).toBe('left by the former app')
      expect((await call('DELETE', `/svc/apps/${old.json.id}.json`)).status).toBe(204)
      const taken = await call('POST', '/svc/apps.json', {as: 'mallory', body: {app: {name: 'New', url_code: 'handed', app_engine: 'html',
        css_engine: 'none', public: true, source_code: NEW_APP}}})
      expect(taken.status, taken.text).toBe(201)
      await page.goto(`${main}/a/handed`)
      expect(new URL(page.url()).hostname).toBe('handed.localhost')
      expect((await results(page)).secret).toBeNull()
    } finally {
      await chrome.close()
    }
  })
})
