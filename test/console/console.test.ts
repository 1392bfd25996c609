// The web console of `svc serve`: sign-in with a token (HttpOnly session), then dashboards,
// prompts, databases, apps and flow runs — over HTTP and in Debian's Chromium, with a screenshot
// kept under test-output/ (a CI artifact).
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import type {Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {chromiumNotice, describeWithChromium, launchChromium} from '../helpers/browser.js'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

const OUTPUT = fileURLToPath(new URL('../../test-output', import.meta.url))

let server: ServeProcess
let token: string
let url: string
let appId: string
const bodies: string[] = []

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, {
    method, headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'}, body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  bodies.push(text)
  expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300)
  return text ? JSON.parse(text) : undefined
}

beforeAll(async () => {
  const data = tempDir()
  const admin = (await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--name', 'Ada Admin', '--data', data, '--json'])).json
  token = admin.token
  server = await svcServe(data, ['--quiet'])
  url = server.url
  await api('POST', '/svc/prompts.json', {prompt: {name: 'Greeting', code: 'greeting', content: 'Hello {{ who }} from the account layer'}})
  const db = await api('POST', '/svc/dbs.json', {db: {name: 'People', code: 'people', schema: {fields: {name: 'string', city: 'string'}, indexed_fields: ['name', 'city']}}})
  for (const [name, city] of [['Ada Lovelace', 'London'], ['Grace Hopper', 'New York'], ['Alan Turing', 'London']]) {
    await api('POST', `/svc/dbs/${db.id}/records.json`, {record: {data: {name, city}}})
  }
  await api('POST', '/toolkit/dashboards.json', {dashboard: {name: 'Sales board', context: 'main', layout: [{key: 'tasks', size: 'half', config: {scope: 'mine'}}, {key: 'activity', size: 'half'}]}})
  appId = (await api('POST', '/svc/apps.json', {app: {name: 'Hello app', app_engine: 'js', css_engine: 'none', source_code: 'document.getElementById("svc-app").textContent = "hello"; alert("an app dialog over the console")'}})).id
  await api('POST', '/toolkit/dashboards.json', {dashboard: {name: 'CRM board', context: 'crm', layout: [{key: `svc_app:${appId}`, size: 'three_quarters'}, {key: 'tasks', size: 'quarter'}]}})
  await api('POST', '/toolkit/dashboards.json', {dashboard: {name: 'Focus board', context: 'main', layout: [{key: 'todo', size: 'full'}]}})
}, 120_000)

afterAll(async () => {
  await server?.stop()
  const everything = bodies.join('\n') + server?.output()
  expect(everything).not.toContain(token)
})

describe('console over HTTP', () => {
  it('sends visitors without a session to the login page; a bad token is refused; a good one sets an HttpOnly session', async () => {
    const anon = await fetch(`${url}/`, {redirect: 'manual'})
    expect(anon.status).toBe(303)
    expect(anon.headers.get('location')).toBe('/svc/login?next=/')
    const login = await fetch(url + anon.headers.get('location'))
    expect(login.status).toBe(200)
    expect(await login.text()).toMatch(/<input[^>]*id="token"/)
    const bad = await fetch(`${url}/svc/login`, {method: 'POST', body: new URLSearchParams({token: 'nope', next: '/'}), redirect: 'manual'})
    expect(bad.status).toBe(401)
    expect(await bad.text()).toContain('That token is not valid.')
    const good = await fetch(`${url}/svc/login`, {method: 'POST', body: new URLSearchParams({token, next: '/'}), redirect: 'manual'})
    expect(good.status).toBe(303)
    const cookie = good.headers.get('set-cookie')!
    expect(cookie).toMatch(/svc_session=[^;]+;.*HttpOnly/i)
    expect(cookie).not.toContain(token)
    const page = await fetch(`${url}/`, {headers: {cookie: cookie.split(';')[0]!}})
    expect(page.status).toBe(200)
    const html = await page.text()
    bodies.push(html)
    const script = /src="(\/console\/assets\/index-[\w-]+\.js)"/.exec(html)
    expect(script).not.toBeNull()
    const asset = await fetch(url + script![1])
    expect(asset.status).toBe(200)
    expect(asset.headers.get('cache-control')).toContain('immutable')
    expect(asset.headers.get('content-type')).toContain('javascript')
    expect((await fetch(`${url}/console/assets/..%2F..%2Fpackage.json`)).status).toBe(404)
    expect((await fetch(`${url}/console/assets/missing.js`)).status).toBe(404)
  })

  it('answers /favicon.ico (an SVG icon) and links it from the console and login pages', async () => {
    const icon = await fetch(`${url}/favicon.ico`)
    expect(icon.status).toBe(200)
    expect(icon.headers.get('content-type')).toBe('image/svg+xml')
    expect(await icon.text()).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/)
    expect(await (await fetch(`${url}/svc/login`)).text()).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.ico">')
  })

  it('states the engines (GET /svc/engines.json, from the registry) to a signed-in user: the console names none', async () => {
    const engines = await api('GET', '/svc/engines.json')
    const {APP_ENGINES, CSS_ENGINES, DEFAULT_APP_ENGINE, engineSpec} = await import('../../src/engines/index.js')
    expect(engines.app_engines.map((e: {name: string}) => e.name)).toEqual(APP_ENGINES)
    expect(engines.css_engines.map((e: {name: string}) => e.name)).toEqual(CSS_ENGINES)
    expect(engines.default_app_engine).toBe(DEFAULT_APP_ENGINE)
    for (const e of engines.app_engines) {
      const spec = engineSpec(e.name)
      expect(e).toEqual({name: spec.name, library: spec.library, language: spec.language, source_file: spec.sourceFile, builds: spec.compile === 'vite' || spec.compile === 'game'})
    }
    expect((await fetch(`${url}/svc/engines.json`)).status).toBe(401)
  })

  it('keeps the first load small: the page\'s scripts and styles ≤ 200 KB gzipped, the code editor not among them', async () => {
    const {readFileSync} = await import('node:fs')
    const {gzipSync} = await import('node:zlib')
    const dir = fileURLToPath(new URL('../../dist/console/', import.meta.url))
    const html = readFileSync(join(dir, 'index.html'), 'utf8')
    const first = [...html.matchAll(/(?:src|href)="\/console\/(assets\/[\w-]+\.(?:js|css))"/g)].map((m) => m[1]!)
    expect(first.length).toBeGreaterThanOrEqual(2)
    const gzipped = first.reduce((sum, f) => sum + gzipSync(readFileSync(join(dir, f)), {level: 9}).length, 0)
    expect(gzipped).toBeLessThanOrEqual(200 * 1024)
    expect(first.some((f) => /codemirror|CodeEditor/.test(f))).toBe(false)
    for (const f of first.filter((f) => f.endsWith('.js'))) expect(readFileSync(join(dir, f), 'utf8')).not.toContain('cm-editor')
  })
})

chromiumNotice()

/** A fresh Chromium page for `test`, the browser closed after it. */
async function inChromium(test: (page: Page) => Promise<void>, options?: Parameters<typeof launchChromium>[0]) {
  const browser = await launchChromium(options)
  try {
    await test(await browser.context.newPage())
  } finally {
    await browser.close()
  }
}

/** Signs in, then opens the CRM context's dashboard (the one with the app tile). */
async function openCrmBoard(page: Page) {
  await page.goto(`${url}/`)
  await page.fill('#token', token)
  await page.click('button[type=submit]')
  await page.waitForSelector('[data-testid=who]', {state: 'attached'})
  await page.goto(`${url}/#/dashboards`)
  await page.waitForSelector('[data-testid=dashboard-name]')
  await page.selectOption('[data-testid=context]', 'crm')
  await page.waitForFunction(() => document.querySelector('[data-testid=dashboard-name]')?.textContent === 'CRM board')
}

describeWithChromium('console in Chromium', () => {
  it('an app tile stays signed in where the browser blocks third-party cookies (its cookie is partitioned)', async () => {
    await inChromium(async (page) => {
      await openCrmBoard(page)
      // Exactly the app's text: the sign-in-not-kept page shows the app's name ("Hello app").
      await page.frameLocator('.tile iframe').getByText('hello', {exact: true}).waitFor({timeout: 60_000})
    }, {thirdPartyCookies: false})
  })

  it("an app tile is sandboxed: it runs, signed in, but its alert() never shows over the console", async () => {
    await inChromium(async (page) => {
      const dialogs: string[] = []
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message())
        void dialog.dismiss()
      })
      await openCrmBoard(page)
      const sandbox = (await page.getAttribute('.tile iframe', 'sandbox'))!.split(/\s+/)
      expect(sandbox).toEqual(expect.arrayContaining(['allow-scripts', 'allow-same-origin', 'allow-forms']))
      expect(sandbox).not.toContain('allow-modals')
      expect(sandbox.filter((t) => t.startsWith('allow-top-navigation'))).toEqual([])
      // The app ran (its text), on its own origin, past the alert() it calls right after.
      await page.frameLocator('.tile iframe').getByText('hello', {exact: true}).waitFor({timeout: 60_000})
      expect(page.frames().map((f) => new URL(f.url()).hostname)).toContain('hello-app.localhost')
      expect(dialogs).toEqual([])
    })
  })

  it('signs in, switches a dashboard, searches a db and renders a prompt', async () => {
    await inChromium(async (page) => {
      await page.goto(`${url}/`)
      await page.fill('#token', token)
      await page.click('button[type=submit]')
      await page.waitForSelector('[data-testid=who]')
      expect(await page.textContent('[data-testid=who]')).toContain('Ada Admin')
      // The start page is the overview: what the workspace holds, the apps with their addresses.
      await page.waitForFunction(() => document.querySelector('[data-testid=count-dashboards]')?.textContent === '3 dashboards')
      expect(await page.textContent('[data-testid=count-dbs]')).toBe('1 database')
      expect(await page.textContent('[data-testid=count-apps]')).toBe('1 app')
      expect(await page.textContent('[data-testid=count-prompts]')).toBe('1 stored prompt')
      expect(await page.getAttribute('[data-testid=overview-apps] a[data-app-page]', 'href')).toBe('/a/hello-app')
      expect(await page.locator('[data-testid=next-steps] li[data-step]').evaluateAll((items) => items.map((li) => li.getAttribute('data-step')))).toEqual(['flow'])
      await page.click('[data-tab=dashboards]')

      // The last dashboard created is the selection; switch to the other one.
      await page.waitForSelector('[data-testid=dashboard-name]')
      expect(await page.textContent('[data-testid=dashboard-name]')).toBe('Focus board')
      expect(await page.locator('.tile').count()).toBe(1)
      await page.selectOption('[data-testid=dashboard-select]', {label: 'Sales board'})
      await page.waitForFunction(() => document.querySelector('[data-testid=dashboard-name]')?.textContent === 'Sales board')
      expect(await page.locator('.tile').count()).toBe(2)
      expect(await page.getAttribute('.tile[data-key=tasks]', 'data-size')).toBe('half')
      expect(await page.textContent('.tile[data-key=tasks]')).toContain('mine')
      mkdirSync(OUTPUT, {recursive: true})
      await page.screenshot({path: join(OUTPUT, 'console-dashboard.png'), fullPage: true})

      // A context whose dashboard holds an app tile: the app runs in an iframe of /a/<id>.
      await page.selectOption('[data-testid=context]', 'crm')
      await page.waitForFunction(() => document.querySelector('[data-testid=dashboard-name]')?.textContent === 'CRM board')
      expect(await page.getAttribute('.tile iframe', 'src')).toBe(`/a/${appId}`)
      expect(await page.getAttribute(`.tile[data-key="svc_app:${appId}"]`, 'data-size')).toBe('three_quarters')
      const tile = page.frameLocator('.tile iframe')
      // The tile runs the app on its own origin, signed in there (a cookie a cross-site frame keeps).
      // Exactly the app's text ("Hello app" alone is the name on the sign-in-not-kept page).
      await tile.getByText('hello', {exact: true}).waitFor({timeout: 60_000})
      expect(page.frames().map((f) => new URL(f.url()).hostname)).toContain('hello-app.localhost')

      await page.click('[data-tab=apps]')
      await page.waitForSelector('[data-testid=apps] td:has-text("Hello app")')
      expect(await page.textContent('[data-testid=apps] tbody')).toContain('served as is')
      expect(await page.getAttribute('[data-testid=apps] a[data-app-page]', 'href')).toBe('/a/hello-app')
      // The link opens the app on its own origin, signed in there through the hand-over (issue 15).
      const [appTab] = await Promise.all([page.context().waitForEvent('page'), page.click('[data-testid=apps] a[data-app-page]')])
      await appTab.getByText('hello', {exact: true}).waitFor({timeout: 60_000})
      expect(new URL(appTab.url()).hostname).toBe('hello-app.localhost')
      expect(new URL(appTab.url()).pathname).toBe('/')
      await appTab.close()

      await page.click('[data-tab=flows]')
      await page.waitForSelector('[data-testid=runs]')

      await page.click('[data-tab=dbs]')
      await page.click('[data-testid=dbs] a[data-db=people]')
      await page.waitForSelector('[data-testid=records] tbody tr td:has-text("Grace Hopper")')
      await page.fill('[data-testid=db-search] input[name=q]', 'lond')
      await page.click('[data-testid=db-search] button[type=submit]')
      await page.waitForFunction(() => !document.querySelector('[data-testid=records]')?.textContent?.includes('Grace Hopper'))
      const rows = await page.locator('[data-testid=records] tbody tr').allTextContents()
      expect(rows).toHaveLength(2)
      expect(rows.join(' ')).toContain('Ada Lovelace')
      await page.fill('[data-testid=db-search] input[name=q]', 'name:alan*')
      await page.click('[data-testid=db-search] button[type=submit]')
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=records] tbody tr').length === 1)
      expect(await page.textContent('[data-testid=records] tbody')).toContain('Alan Turing')
      expect(new URL(page.url()).hash).toBe('#/dbs/people?filter%5Bname%5D=alan*')

      await page.click('[data-tab=prompts]')
      await page.click('[data-testid=prompts] a:text-is("greeting")')
      await page.waitForSelector('[data-testid=cascade-render]')
      expect(await page.textContent('[data-testid=cascade-render]')).toBe('Hello  from the account layer')
      expect(await page.textContent('[data-testid=winner]')).toBe('account')
      await page.goto(`${url}/#/prompts/main_dashboard`)
      await page.waitForFunction(() => document.querySelector('[data-testid=winner]')?.textContent === 'system')
      await page.screenshot({path: join(OUTPUT, 'console.png'), fullPage: true})
      bodies.push(await page.content())
    })
  }, 120_000)
})
