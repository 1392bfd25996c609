// The console live (issue 37, docs/console.md "Live updates"), in Debian's Chromium, on SQLite and
// (with SVC_TEST_DATABASE_URL) on PostgreSQL: the records grid shows changes made elsewhere as they
// happen while a cell is being edited, and keeps the edit (whose save then meets the 412); an open
// prompt editor says "changed by … through cli" the moment a write through the API lands with
// X-Svc-Door: cli; axe is clean on those screens, light and dark, desktop and phone width.
import type {Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {serve} from '@hono/node-server'
import type {Page} from 'playwright-core'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {axeScan, chromiumNotice, describeWithChromium, launchChromium, signInThroughForm} from '../helpers/browser.js'
import {createWorld, overHttp, type Transport, type World} from '../helpers/world.js'

let world: World
let http: Transport
let admin: string
let alice: string
let dbId: number
const ids: Record<string, number> = {}

async function api(method: string, path: string, body?: unknown, {token = admin, headers = {}}: {token?: string; headers?: Record<string, string>} = {}) {
  const res = await http.fetch(path, {method, headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers}, body: body === undefined ? undefined : JSON.stringify(body)})
  const text = await res.text()
  return {status: res.status, json: text ? JSON.parse(text) : undefined}
}

beforeAll(async () => {
  world = await createWorld({
    accounts: ['acme'],
    users: [
      {login: 'admin', role: 'admin', name: 'Ada Admin'},
      {login: 'alice', role: 'admin', name: 'Alice Liddell'},
    ],
  })
  http = await overHttp(world.app)
  admin = world.users.admin!.token
  alice = world.users.alice!.token
  const db = await api('POST', '/svc/dbs.json', {db: {name: 'Tasks', code: 'tasks', schema: {fields: {title: {type: 'string', required: true}, points: 'integer'}}}})
  expect(db.status).toBe(201)
  dbId = db.json.id
  for (const title of ['Alpha', 'Bravo', 'Charlie']) {
    const r = await api('POST', `/svc/dbs/${dbId}/records.json`, {record: {data: {title, points: 1}}})
    expect(r.status).toBe(201)
    ids[title] = r.json.id
  }
}, 180_000)

afterAll(async () => {
  await http?.close()
  await world?.close()
})

chromiumNotice()

/** expect.poll with room for a loaded machine: never a speed assertion. */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, {timeout: 120_000, interval: 100})

async function signedIn(page: Page, hash: string, origin = http.origin) {
  await signInThroughForm(page, origin, admin)
  await page.goto(`${origin}/${hash}`)
}

/** The world's app served on `port` (0: any), for a test that cuts every connection and serves again on the same port. */
async function listen(port = 0): Promise<Server> {
  return new Promise((resolve) => {
    const s = serve({fetch: world.app.fetch, port, hostname: '127.0.0.1'}, () => resolve(s as Server))
  })
}
const rowIds = (page: Page) => page.locator('[data-testid=records] tbody tr[data-id]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-id'))))
const cellValue = (page: Page, id: number, field: string) => page.locator(`[data-cell="${id}:${field}"]`).inputValue()

describeWithChromium('the console live in Chromium', () => {
  it('updates the records grid as changes land elsewhere, keeping the cell being edited; its save meets the 412', async () => {
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dbs/tasks')
      await poll(() => rowIds(page)).toEqual([ids.Charlie, ids.Bravo, ids.Alpha])
      await poll(() => page.getByTestId('live-state').getAttribute('data-state')).toBe('live')
      await page.getByTestId('edit-cells').click()
      // An edit typed, not saved: the cell keeps focus and its text.
      const cell = page.locator(`[data-cell="${ids.Alpha}:title"]`)
      await cell.fill('Alpha (mine)')
      await poll(() => page.getByTestId('queue').textContent()).toContain('1 pending change')

      // Changes elsewhere (another user, the API): a new record, an update, a delete, and an update of the row being edited.
      const created = await api('POST', `/svc/dbs/${dbId}/records.json`, {record: {data: {title: 'Delta', points: 4}}}, {token: alice})
      expect(created.status).toBe(201)
      expect((await api('PATCH', `/svc/dbs/${dbId}/records/${ids.Bravo}.json`, {record: {data: {title: 'Bravo 2'}}}, {token: alice})).status).toBe(200)
      expect((await api('DELETE', `/svc/dbs/${dbId}/records/${ids.Charlie}.json`, undefined, {token: alice})).status).toBe(204)
      expect((await api('PATCH', `/svc/dbs/${dbId}/records/${ids.Alpha}.json`, {record: {data: {title: 'Alpha (theirs)', points: 7}}}, {token: alice})).status).toBe(200)

      // The page follows without a reload: the new record on top (newest first), Bravo changed, Charlie gone…
      await poll(() => rowIds(page)).toEqual([created.json.id, ids.Bravo, ids.Alpha])
      await poll(() => cellValue(page, ids.Bravo, 'title')).toBe('Bravo 2')
      await poll(() => cellValue(page, ids.Alpha, 'points')).toBe('7')
      await poll(() => page.getByTestId('range').textContent()).toContain('of 3')
      // …and the edit is still there, the row saying it changed underneath, with their value.
      expect(await cellValue(page, ids.Alpha, 'title')).toBe('Alpha (mine)')
      await poll(() => page.getByTestId('underneath').textContent()).toContain('Alpha (theirs)')
      await poll(() => page.locator(`tr[data-id="${ids.Alpha}"] [data-testid=row-underneath]`).count()).toBe(1)
      expect(await page.getByTestId('underneath').getAttribute('aria-live')).toBe('polite')

      // Saving meets the API's 412 (the edit was made on the older version): nothing written, the change stays queued.
      await page.getByTestId('save-changes').click()
      await poll(() => page.getByTestId('queue').textContent()).toContain('changed by someone else')
      expect((await api('GET', `/svc/dbs/${dbId}/records/${ids.Alpha}.json`)).json.data.title).toBe('Alpha (theirs)')
      // Saving again replaces their version knowingly.
      await page.getByTestId('save-changes').click()
      await poll(async () => (await api('GET', `/svc/dbs/${dbId}/records/${ids.Alpha}.json`)).json.data).toEqual({title: 'Alpha (mine)', points: 7})
      await poll(() => page.getByTestId('queue').count()).toBe(0)

      // Leaving the screen closes the stream; the grid opened again is live again.
      await page.goto(`${http.origin}/#/dbs`)
      await page.goto(`${http.origin}/#/dbs/tasks`)
      await poll(() => page.getByTestId('live-state').getAttribute('data-state')).toBe('live')
      const late = await api('POST', `/svc/dbs/${dbId}/records.json`, {record: {data: {title: 'Echo'}}}, {token: alice})
      await poll(() => rowIds(page)).toEqual([late.json.id, created.json.id, ids.Bravo, ids.Alpha])
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('resumes after the connection is cut: the changes made meanwhile arrive once each, from the feed, without reading the page again', async () => {
    let server = await listen()
    const port = (server.address() as AddressInfo).port
    const origin = `http://127.0.0.1:${port}`
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dbs/tasks', origin)
      await poll(() => page.getByTestId('live-state').getAttribute('data-state')).toBe('live')
      const first = await api('POST', `/svc/dbs/${dbId}/records.json`, {record: {data: {title: 'Golf'}}}, {token: alice})
      await poll(async () => (await rowIds(page))[0]).toBe(first.json.id)
      const shown = await rowIds(page)
      // The server goes away (every connection cut); writes go on through another listener.
      await new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
      await poll(() => page.getByTestId('live-state').getAttribute('data-state')).toBe('retrying')
      const reads: string[] = []
      page.on('request', (r) => void (r.url().includes('/records.json') && reads.push(r.url())))
      const hotel = await api('POST', `/svc/dbs/${dbId}/records.json`, {record: {data: {title: 'Hotel'}}}, {token: alice})
      const india = await api('POST', `/svc/dbs/${dbId}/records.json`, {record: {data: {title: 'India'}}}, {token: alice})
      expect((await api('PATCH', `/svc/dbs/${dbId}/records/${first.json.id}.json`, {record: {data: {title: 'Golf 2'}}}, {token: alice})).status).toBe(200)
      expect((await api('DELETE', `/svc/dbs/${dbId}/records/${hotel.json.id}.json`, undefined, {token: alice})).status).toBe(204)
      server = await listen(port)
      await poll(() => page.getByTestId('live-state').getAttribute('data-state')).toBe('live')
      await poll(() => rowIds(page)).toEqual([india.json.id, ...shown])
      await poll(() => page.locator(`tr[data-id="${first.json.id}"]`).textContent()).toContain('Golf 2')
      // Every missed change came from the feed (Last-Event-ID): the page was not read again.
      expect(reads).toEqual([])
    } finally {
      await browser.close()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }, 300_000)

  it('reloads the page on a resync (the feed could not resume), keeping the unsaved edit', async () => {
    const server = await listen()
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dbs/tasks', origin)
      await poll(() => page.getByTestId('live-state').getAttribute('data-state')).toBe('live')
      await page.getByTestId('edit-cells').click()
      const [id] = await rowIds(page)
      await page.locator(`[data-cell="${id}:title"]`).fill('kept through the resync')
      // The next stream answers what a server past its retention says; then the page is read again.
      await page.route('**/changes**', (route) => route.fulfill({status: 200, headers: {'content-type': 'text/event-stream'},
        body: 'event: resync\nid: 0000000000000001\ndata: {"reason":"past retention"}\n\n'}), {times: 1})
      const reads: string[] = []
      page.on('request', (r) => void (r.url().includes('/records.json') && reads.push(r.url())))
      server.closeAllConnections()
      await poll(() => page.getByTestId('live-note').textContent()).toContain('Reloaded')
      await poll(() => reads.length).toBeGreaterThan(0)
      await poll(() => page.getByTestId('live-state').getAttribute('data-state')).toBe('live')
      expect(await page.locator(`[data-cell="${id}:title"]`).inputValue()).toBe('kept through the resync')
      expect(await page.getByTestId('queue').textContent()).toContain('1 pending change')
    } finally {
      await browser.close()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }, 300_000)

  it('tells an open prompt editor "changed by … through cli" the moment a write lands, with their version to compare or take', async () => {
    const prompt = (await api('POST', '/svc/prompts.json', {prompt: {name: 'Live hello', code: 'live_hello', content: 'Hello {{ who }}'}})).json
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, `#/prompts/live_hello/${prompt.id}`)
      await page.getByTestId('prompt-form').waitFor()
      await poll(() => page.getByTestId('live-region').getAttribute('data-live')).toBe('live')
      // An unsaved edit in the form.
      await page.locator('input[name=name]').fill('Live hello (mine)')
      // Alice writes through the CLI's door.
      const written = await api('PATCH', `/svc/prompts/${prompt.id}.json`, {prompt: {content: 'Hi there {{ who }}'}}, {token: alice, headers: {'x-svc-door': 'cli'}})
      expect(written.status).toBe(200)
      const notice = page.getByTestId('changed')
      await poll(() => notice.textContent()).toMatch(/changed by alice through cli/i)
      expect(await page.getByTestId('live-region').getAttribute('aria-live')).toBe('polite')
      // The edit is still in the form; comparing shows theirs beside it, before any save.
      expect(await page.locator('input[name=name]').inputValue()).toBe('Live hello (mine)')
      await page.getByTestId('compare-changed').focus()
      await page.keyboard.press('Enter')
      const stale = page.getByTestId('stale')
      await poll(() => stale.locator('tr[data-field=content] td.theirs').textContent()).toBe('Hi there {{ who }}')
      expect(await stale.textContent()).toContain('Your edits are not saved yet')
      // Keeping my edits: the name is mine, the content theirs, and the save goes through without a 412.
      await page.getByTestId('keep-mine').click()
      await page.getByTestId('save').click()
      await poll(async () => {
        const now = (await api('GET', `/svc/prompts/${prompt.id}.json`)).json
        return [now.name, now.content]
      }).toEqual(['Live hello (mine)', 'Hi there {{ who }}'])
      // Our own save is no news: no notice appears for it.
      await poll(() => page.getByTestId('status').textContent()).toContain('Saved')
      expect(await page.getByTestId('changed').count()).toBe(0)

      // Another write, then "Use their version" takes it into the form.
      await api('PATCH', `/svc/prompts/${prompt.id}.json`, {prompt: {name: 'Renamed by Alice'}}, {token: alice, headers: {'x-svc-door': 'cli'}})
      await poll(() => notice.textContent()).toMatch(/changed by alice through cli/i)
      await page.getByTestId('take-changed').click()
      await poll(() => page.locator('input[name=name]').inputValue()).toBe('Renamed by Alice')
      expect(await page.getByTestId('changed').count()).toBe(0)
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('tells an open record editor who changed the record (and who deleted it), through which door', async () => {
    const record = (await api('POST', `/svc/dbs/${dbId}/records.json`, {record: {data: {title: 'Foxtrot', points: 2}}})).json
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, `#/dbs/tasks/records/${record.id}`)
      await poll(() => page.getByTestId('live-region').getAttribute('data-live')).toBe('live')
      const title = page.getByRole('textbox', {name: /^title/})
      await title.fill('Foxtrot (mine)')
      await api('PATCH', `/svc/dbs/${dbId}/records/${record.id}.json`, {record: {data: {points: 3}}}, {token: alice, headers: {'x-svc-door': 'mcp', 'x-svc-client': 'Claude Desktop'}})
      await poll(() => page.getByTestId('changed').textContent()).toMatch(/changed by alice through mcp \(Claude Desktop\)/i)
      expect(await title.inputValue()).toBe('Foxtrot (mine)')
      await api('DELETE', `/svc/dbs/${dbId}/records/${record.id}.json`, undefined, {token: alice})
      await poll(() => page.getByTestId('changed').textContent()).toMatch(/deleted by alice through api/i)
      expect(await title.inputValue()).toBe('Foxtrot (mine)')
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('has no serious or critical axe violation on the live grid and the editor notice, light and dark, desktop and phone width', async () => {
    const prompt = (await api('POST', '/svc/prompts.json', {prompt: {name: 'Axe live', code: 'axe_live', content: 'Hi'}})).json
    const browser = await launchChromium({bypassCSP: true})
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dbs/tasks')
      const found: string[] = []
      const wide: string[] = []
      let n = 0
      for (const [scheme, width] of [['light', 1280], ['dark', 1280], ['dark', 360]] as const) {
        await page.emulateMedia({colorScheme: scheme})
        await page.setViewportSize({width, height: 800})
        // The grid with an edit changed underneath, a record deleted under an edit, and a new one not shown (page 2).
        await page.goto(`${http.origin}/#/dbs/tasks?sort=title`)
        await poll(() => page.getByTestId('live-state').getAttribute('data-state')).toBe('live')
        await page.getByTestId('edit-cells').click()
        const [first, second] = await rowIds(page)
        await page.locator(`[data-cell="${first}:title"]`).fill(`mine ${++n}`)
        await page.locator(`[data-cell="${second}:points"]`).fill('99')
        await api('PATCH', `/svc/dbs/${dbId}/records/${first}.json`, {record: {data: {points: n}}}, {token: alice})
        await api('DELETE', `/svc/dbs/${dbId}/records/${second}.json`, undefined, {token: alice})
        await api('POST', `/svc/dbs/${dbId}/records.json`, {record: {data: {title: `zz ${n}`}}}, {token: alice})
        await page.getByTestId('unseen').waitFor()
        await page.locator('[data-testid=row-gone]').waitFor()
        await page.locator('[data-testid=row-underneath]').waitFor()
        found.push(...await axeScan(page, `${scheme} ${width} grid`))
        if (width === 360 && await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1)) wide.push('grid')
        await page.getByTestId('discard-changes').click()
        // The prompt editor with the notice.
        await page.goto(`${http.origin}/#/prompts/axe_live/${prompt.id}`)
        await page.getByTestId('prompt-form').waitFor()
        await poll(() => page.getByTestId('live-region').getAttribute('data-live')).toBe('live')
        await api('PATCH', `/svc/prompts/${prompt.id}.json`, {prompt: {content: `Hi ${n}`}}, {token: alice, headers: {'x-svc-door': 'cli'}})
        await page.getByTestId('changed').waitFor()
        found.push(...await axeScan(page, `${scheme} ${width} editor notice`))
        if (width === 360 && await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1)) wide.push('editor notice')
        await page.getByTestId('compare-changed').click()
        await page.getByTestId('stale').waitFor()
        found.push(...await axeScan(page, `${scheme} ${width} editor compare`))
      }
      expect(found).toEqual([])
      expect(wide).toEqual([])
    } finally {
      await browser.close()
    }
  }, 300_000)
})

