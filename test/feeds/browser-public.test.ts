// Live public apps in Chromium, both stores (issue 37 "Done when"): the example live guestbook
// (examples/live-apps) served by `svc serve`; two visitors each see only their own new entries
// appear without a reload (and a second tab of the same visitor sees them too); the server is
// stopped and started again on the same data while writes continue — the page reconnects and shows
// every missed entry once; a forged cookie, an `{ip}` spoof through X-Forwarded-For without
// --trust-proxy, and a cross-site page opening the feed with the visitor's cookie receive nothing.
import {readFileSync, rmSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import type {Page} from 'playwright-core'
import {chromiumNotice, describeWithChromium, launchChromium} from '../helpers/browser.js'
import {ROOT} from '../helpers/cli.js'
import {createTestDatabase, PG_URL, seedAdminToken} from '../helpers/pg.js'
import {fetchWithHost, tempDir} from '../helpers/world.js'
import {serveOn, type Served} from './public-helpers.js'

chromiumNotice()

const EXAMPLE = join(ROOT, 'examples', 'live-apps')
const read = (path: string) => readFileSync(join(EXAMPLE, path), 'utf8')
const POLL = {timeout: 30_000, interval: 100}

describeWithChromium(`live public apps in Chromium [${PG_URL ? 'postgres' : 'sqlite'}]`, {timeout: 300_000}, () => {
  const dataDir = tempDir()
  let database: {url: string; drop(): Promise<void>} | undefined
  let port = 0
  let main = ''
  let token = ''
  let server: Served | undefined
  let visitorA: Awaited<ReturnType<typeof launchChromium>>
  let visitorB: Awaited<ReturnType<typeof launchChromium>>
  const other: Server[] = []
  const bookOrigin = () => `http://live-guestbook.localhost:${port}`

  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(main + path, {method, headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'}, body: body === undefined ? undefined : JSON.stringify(body)})
    const text = await r.text()
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`)
    return text ? JSON.parse(text) : undefined
  }
  /** Entries the page shows, in order. */
  const shown = (page: Page) => page.locator('[data-testid=entries] li').allTextContents()
  const openBook = async (chrome: typeof visitorA, app = 'live-guestbook') => {
    const page = await chrome.context.newPage()
    await page.goto(`${main}/a/${app}`)
    await page.getByTestId('status').getByText('live').waitFor({timeout: 30_000})
    return page
  }
  const sign = async (page: Page, message: string) => {
    await page.getByLabel('Message').fill(message)
    await page.getByRole('button', {name: 'Sign'}).click()
  }
  /** The visitor's signed cookie for the app origin, as the browser holds it. */
  const cookieOf = async (chrome: typeof visitorA, origin = bookOrigin()) => {
    const c = (await chrome.context.cookies(origin)).find((x) => x.name === 'svc_visitor')
    if (!c) throw new Error('no visitor cookie in the browser')
    return `svc_visitor=${c.value}`
  }
  /** A public create from outside the page with the visitor's cookie, retried until the server takes it. */
  const writeAs = async (cookie: string, message: string, origin = bookOrigin(), db = 'live_guestbook') => {
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await fetchWithHost(`http://127.0.0.1:${port}`, new URL(`${origin}/svc/db/${db}/create`),
          {method: 'POST', headers: {cookie, 'content-type': 'application/json'}, body: JSON.stringify({data: {message}})})
        if (r.status === 201) return
        if (r.status < 500) throw new Error(`create ${message}: ${r.status} ${await r.text()}`)
      } catch (error) {
        if (!/ECONNREFUSED|ECONNRESET|socket hang up/.test(String((error as Error).message) + String((error as {code?: string}).code))) throw error
      }
      if (attempt > 3000) throw new Error(`create ${message}: the server did not come back`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  beforeAll(async () => {
    database = PG_URL ? await createTestDatabase() : undefined
    token = await seedAdminToken(dataDir, database?.url)
    server = await serveOn(0, dataDir, database?.url)
    port = server.port
    main = `http://127.0.0.1:${port}`
    await api('POST', '/svc/dbs.json', {db: JSON.parse(read('dbs/live_guestbook.json'))})
    await api('POST', '/svc/apps.json', {app: {...JSON.parse(read('apps/live-guestbook/app.json')), source_code: read('apps/live-guestbook/App.svelte')}})
    // The same page over a db scoped by the visitor's address.
    await api('POST', '/svc/dbs.json', {db: {name: 'By address', code: 'by_address', schema: {fields: {message: 'string', ip: 'string'}},
      public_methods: {list: {scope_by: 'ip'}, create: {allowed_fields: ['message'], auto_fields: {ip: '{ip}'}}, subscribe: {scope_by: 'ip'}}}})
    await api('POST', '/svc/apps.json', {app: {name: 'By address', url_code: 'by-address', app_engine: 'svelte', public: true, db_code: 'by_address',
      source_code: read('apps/live-guestbook/App.svelte')}})
    visitorA = await launchChromium()
    visitorB = await launchChromium()
  }, 180_000)
  afterAll(async () => {
    await visitorA?.close()
    await visitorB?.close()
    for (const s of other) s.close()
    await server?.stop()
    await database?.drop()
    rmSync(dataDir, {recursive: true, force: true})
  })

  it('two visitors each see only their own new entries appear without a reload; a second tab of one sees its own too', async () => {
    const a = await openBook(visitorA)
    const b = await openBook(visitorB)
    const a2 = await openBook(visitorA)
    await sign(a, 'hello from A')
    await expect.poll(() => shown(a), POLL).toEqual(['hello from A'])
    await expect.poll(() => shown(a2), POLL).toEqual(['hello from A'])
    await sign(b, 'hello from B')
    await expect.poll(() => shown(b), POLL).toEqual(['hello from B'])
    // Written from outside the page (a script with A's cookie): it appears in A's tabs only.
    await writeAs(await cookieOf(visitorA), 'A again')
    await expect.poll(() => shown(a2), POLL).toEqual(['hello from A', 'A again'])
    await expect.poll(() => shown(a), POLL).toEqual(['hello from A', 'A again'])
    expect(await shown(b)).toEqual(['hello from B'])
    await a2.close()
    await b.close()
    await a.close()
  })

  it('the server restarts while writes continue: the page reconnects and shows every missed entry once', async () => {
    const a = await openBook(visitorA)
    const before = await shown(a)
    const cookie = await cookieOf(visitorA)
    const messages = Array.from({length: 16}, (_, i) => `W${i + 1}`)
    let acknowledged = 0
    const writer = (async () => {
      for (const m of messages) {
        await writeAs(cookie, m)
        acknowledged++
      }
    })()
    await expect.poll(() => acknowledged, POLL).toBeGreaterThanOrEqual(4)
    await server!.stop()
    server = await serveOn(port, dataDir, database?.url)
    await writer
    await expect.poll(() => shown(a), {timeout: 60_000, interval: 200}).toEqual([...before, ...messages])
    // Still live after the restart.
    await writeAs(cookie, 'after')
    await expect.poll(() => shown(a), POLL).toEqual([...before, ...messages, 'after'])
    await a.close()
  })

  it('an {ip} spoof through X-Forwarded-For (no --trust-proxy) receives nothing of that address', async () => {
    // Records of another address, written by a member.
    const theirs = () => api('POST', '/svc/dbs/by_address/records.json', {record: {data: {message: 'theirs', ip: '203.0.113.7'}}})
    await theirs()
    const page = await visitorB.context.newPage()
    await page.setExtraHTTPHeaders({'x-forwarded-for': '203.0.113.7'})
    await page.goto(`${main}/a/by-address`)
    await page.getByTestId('status').getByText('live').waitFor({timeout: 30_000})
    await theirs()
    // The page's own entry comes back (its address is the peer's): the feed is live, and it is the only one.
    await sign(page, 'mine')
    await expect.poll(() => shown(page), POLL).toEqual(['mine'])
    await theirs()
    await sign(page, 'mine again')
    await expect.poll(() => shown(page), POLL).toEqual(['mine', 'mine again'])
    await page.close()
  })

  it('a cross-site page opening the feed with the visitor\'s cookie receives nothing', async () => {
    const a = await openBook(visitorA)
    const before = await shown(a)
    // Another site's page, in visitor A's browser, opens the guestbook's feed with credentials.
    const evil = createServer((_, res) => {
      res.writeHead(200, {'content-type': 'text/html'})
      res.end(`<!doctype html><script>
        window.received = []; window.errors = 0
        const s = new EventSource(${JSON.stringify(`${bookOrigin()}/svc/db/live_guestbook/subscribe`)}, {withCredentials: true})
        for (const t of ['create', 'update', 'delete', 'message']) s.addEventListener(t, (e) => window.received.push(e.data))
        s.onerror = () => { window.errors++; window.state = s.readyState }
      </script>`)
    })
    other.push(evil)
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', () => r()))
    const page = await visitorA.context.newPage()
    const asked: string[] = []
    page.on('request', (r) => {
      if (r.url().includes('/subscribe')) asked.push(r.url())
    })
    await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`)
    await expect.poll(() => page.evaluate(() => (window as unknown as {errors: number}).errors), POLL).toBeGreaterThan(0)
    await writeAs(await cookieOf(visitorA), 'secret of A')
    await expect.poll(() => shown(a), POLL).toEqual([...before, 'secret of A'])
    expect(await page.evaluate(() => (window as unknown as {received: string[]}).received)).toEqual([])
    // The page did ask, and its EventSource was closed for good (the server's 403: test/feeds/public-subscribe.test.ts).
    expect(asked.length).toBeGreaterThan(0)
    expect(await page.evaluate(() => (window as unknown as {state: number}).state)).toBe(2)
    await page.close()
    await a.close()
  })

  it('a forged cookie (A\'s key with a wrong signature) is a new visitor: A\'s entries never reach it', async () => {
    const cookie = await cookieOf(visitorA)
    const key = decodeURIComponent(cookie.slice('svc_visitor='.length)).split('.')[0]!
    await visitorB.context.addCookies([{name: 'svc_visitor', value: `${key}.${'A'.repeat(43)}%3D`, url: bookOrigin()}])
    const forged = await openBook(visitorB)
    expect(await shown(forged)).toEqual([])
    const a = await openBook(visitorA)
    const before = await shown(a)
    await writeAs(cookie, 'for A only')
    await expect.poll(() => shown(a), POLL).toEqual([...before, 'for A only'])
    // The forged page is live (its own entry comes back), and nothing of A's is in it.
    await sign(forged, 'forger')
    await expect.poll(() => shown(forged), POLL).toEqual(['forger'])
    await forged.close()
    await a.close()
  })
})
