// The console's journal screens (issue 35; docs/history.md "In the console"), in Debian's Chromium, on
// SQLite and (with SVC_TEST_DATABASE_URL) on PostgreSQL: a prompt's History panel (versions, the
// diff against the current version, "Restore this version" with If-Match, a 412 said in words), the
// Trash (a deleted app restored; a db whose code was taken meanwhile: the 422 explained), the
// Activity filtered by door mcp and "Undo these changes" (dry run, then restore) — keyboard, phone
// width, dark mode, axe. Fixtures are written through the HTTP API, the agent's with X-Svc-Door.
import type {Page} from 'playwright-core'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {axeScan, chromiumNotice, codeOf, describeWithChromium, launchChromium, signInThroughForm} from '../helpers/browser.js'
import {createWorld, overHttp, type Transport, type World} from '../helpers/world.js'

let world: World
let http: Transport
let admin: string

const MCP = {'x-svc-door': 'mcp', 'x-svc-client': 'claude-code'}

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await http.fetch(path, {method, headers: {authorization: `Bearer ${admin}`, 'content-type': 'application/json', ...headers}, body: body === undefined ? undefined : JSON.stringify(body)})
  const text = await res.text()
  return {status: res.status, json: text ? JSON.parse(text) : undefined}
}

beforeAll(async () => {
  world = await createWorld({users: [{login: 'admin', role: 'admin', name: 'Ada Admin'}]})
  http = await overHttp(world.app)
  admin = world.users.admin!.token
}, 180_000)

afterAll(async () => {
  await http?.close()
  await world?.close()
})

/** expect.poll with room for a loaded machine: never a speed assertion. */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, {timeout: 120_000, interval: 100})
const site = () => http.origin

async function signedIn(page: Page, hash: string) {
  await signInThroughForm(page, site(), admin)
  await page.goto(`${site()}/${hash}`)
}

/** The lines of one sort (`add`, `del`) of the content's diff, as text. */
const diffLines = (page: Page, sort: string) => page.locator(`[data-testid=diff] [data-line=${sort}][data-file=content]`).allTextContents()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

chromiumNotice()

describeWithChromium('the console\'s history screens in Chromium', () => {
  it('shows a prompt\'s versions and the diff against the current one; restores one (If-Match), and a 412 is said in words', async () => {
    const prompt = (await api('POST', '/svc/prompts.json', {prompt: {name: 'Greeter', code: 'greeter_h', content: 'Hello\nworld\n'}})).json
    expect((await api('PATCH', `/svc/prompts/${prompt.id}.json`, {prompt: {content: 'Hello\nthere\n'}}, {'x-svc-door': 'cli'})).status).toBe(200)
    expect((await api('PATCH', `/svc/prompts/${prompt.id}.json`, {prompt: {content: 'Hi\nthere\n'}}, MCP)).status).toBe(200)
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, `#/prompts/greeter_h/${prompt.id}`)
      await page.getByTestId('history-link').click()
      await page.waitForURL(new RegExp(`#/history/prompt/${prompt.id}$`))
      const rows = page.locator('[data-testid=versions] tbody tr')
      await poll(() => rows.count()).toBe(3)
      expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-op')))).toEqual(['update', 'update', 'create'])
      expect(await rows.nth(0).textContent()).toContain('mcp (claude-code)')
      expect(await rows.nth(1).textContent()).toContain('cli')
      expect(await rows.nth(0).textContent()).toContain('(current)')

      // The current version: nothing to restore.
      await rows.nth(0).getByTestId('select-version').click()
      await page.getByTestId('is-current').waitFor()
      expect(await page.getByTestId('no-diff').count()).toBe(1)

      // The first version against the current one: restoring takes "Hi" and "there" out, puts "Hello" and "world" back.
      await rows.nth(2).getByTestId('select-version').click()
      await page.waitForURL(/\?v=\d{16}$/)
      await poll(() => diffLines(page, 'del')).toEqual(['-Hi', '-there'])
      expect(await diffLines(page, 'add')).toEqual(['+Hello', '+world'])
      expect(await page.getByTestId('changed').textContent()).toContain('content')

      // Someone saves meanwhile: the restore is refused (412), nothing restored, said in words.
      expect((await api('PATCH', `/svc/prompts/${prompt.id}.json`, {prompt: {content: 'Hi\nagain\n'}})).status).toBe(200)
      await page.getByTestId('restore').click()
      await page.getByRole('dialog', {name: 'Restore Greeter?'}).getByRole('button', {name: 'Restore'}).click()
      await poll(() => page.getByTestId('restore-error').textContent()).toContain('changed since')
      expect((await api('GET', `/svc/prompts/${prompt.id}.json`)).json.content).toBe('Hi\nagain\n')
      await poll(() => rows.count()).toBe(4)

      // Again, with the keyboard: the restore button, Enter, the dialog's Restore. The editor opens on the restored version.
      await page.getByTestId('restore').focus()
      await page.keyboard.press('Enter')
      const dialog = page.getByRole('dialog', {name: 'Restore Greeter?'})
      await dialog.waitFor()
      await dialog.getByRole('button', {name: 'Restore'}).focus()
      await page.keyboard.press('Enter')
      await page.waitForURL(new RegExp(`#/prompts/greeter_h/${prompt.id}$`))
      await poll(() => codeOf(page.getByTestId('content'))).toBe('Hello\nworld\n')
      const now = (await api('GET', `/svc/prompts/${prompt.id}.json`)).json
      expect(now.content).toBe('Hello\nworld\n')
      // The restore is itself a version (op restore, door console).
      const [newest] = (await api('GET', `/svc/history.json?kind=prompt&id=${prompt.id}&limit=1`)).json
      expect([newest.op, newest.door]).toEqual(['restore', 'console'])

      // One change's own screen: what it did (against the version before it).
      await page.goto(`${site()}/#/history/${newest.bookmark}`)
      await poll(() => diffLines(page, 'add')).toEqual(['+Hello', '+world'])
      expect(await page.getByTestId('version-door').textContent()).toBe('console')
      expect(await page.getByTestId('is-current').count()).toBe(1)
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('lists deleted things in the Trash and restores a deleted app; a db whose code was taken meanwhile says how to restore it', async () => {
    const app = (await api('POST', '/svc/apps.json', {app: {name: 'Binned app', url_code: 'binned-h', source_code: '<p>keep me</p>', app_engine: 'html'}})).json
    const before = (await api('GET', `/svc/apps/${app.id}.json`)).json
    expect((await api('DELETE', `/svc/apps/${app.id}.json`, undefined, MCP)).status).toBe(204)
    const db = (await api('POST', '/svc/dbs.json', {db: {name: 'Leads', code: 'leads-h'}})).json
    expect((await api('DELETE', `/svc/dbs/${db.id}.json`)).status).toBe(204)
    expect((await api('POST', '/svc/dbs.json', {db: {name: 'Leads again', code: 'leads-h'}})).status).toBe(201)
    // Deleted then restored already: not in the trash.
    const back = (await api('POST', '/svc/prompts.json', {prompt: {name: 'Came back', code: 'back_h', content: 'x'}})).json
    expect((await api('DELETE', `/svc/prompts/${back.id}.json`)).status).toBe(204)
    const [gone] = (await api('GET', `/svc/history.json?kind=prompt&id=${back.id}&limit=1`)).json
    expect((await api('POST', `/svc/history/${gone.bookmark}/restore.json`)).status).toBe(200)

    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/history')
      await page.getByTestId('trash-link').click()
      await page.waitForURL(/#\/history\/trash$/)
      const appRow = page.locator(`[data-testid=trash] tr[data-kind=app][data-id="${app.id}"]`)
      await appRow.waitFor()
      expect(await page.locator(`[data-testid=trash] tr[data-id="${back.id}"]`).count()).toBe(0)
      expect(await appRow.textContent()).toContain('mcp')

      await appRow.getByRole('button', {name: /^Restore app Binned app/}).click()
      await page.getByRole('dialog', {name: /^Restore app Binned app/}).getByRole('button', {name: 'Restore'}).click()
      await appRow.getByTestId('restored').waitFor()
      const restored = (await api('GET', `/svc/apps/${app.id}.json`)).json
      expect(restored.source_code).toBe(before.source_code)
      expect(restored.url_code).toBe('binned-h')
      await appRow.getByTestId('restored').click()
      await page.waitForURL(new RegExp(`#/apps/${app.id}$`))

      // The db: its code is taken by another now — a 422 naming it and how to restore anyway.
      await page.goto(`${site()}/#/history/trash?kind=db`)
      const dbRow = page.locator(`[data-testid=trash] tr[data-kind=db][data-id="${db.id}"]`)
      await dbRow.getByTestId('restore').click()
      await page.getByRole('dialog').getByRole('button', {name: 'Restore'}).click()
      const problem = await poll(() => dbRow.getByTestId('restore-error').textContent())
      await problem.toContain('has already been taken')
      const text = await dbRow.getByTestId('restore-error').textContent()
      expect(text).toContain('leads-h')
      expect(text).toContain('another code')
      expect(await page.locator(`[data-testid=trash] tr[data-kind=app]`).count()).toBe(0)
      expect((await api('GET', '/svc/dbs/leads-h.json')).json.name).toBe('Leads again')
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('filters the activity by door mcp, and undoes what the agent did: a dry run shows it, then the restore', async () => {
    const app = (await api('POST', '/svc/apps.json', {app: {name: 'Agent target', url_code: 'agent-h', source_code: '<p>mine</p>', app_engine: 'html'}})).json
    const appBefore = (await api('GET', `/svc/apps/${app.id}.json`)).json
    const db = (await api('POST', '/svc/dbs.json', {db: {name: 'Notes', code: 'notes-h'}})).json
    const note = (await api('POST', `/svc/dbs/${db.id}/records.json`, {record: {data: {text: 'keep'}}})).json
    const prompt = (await api('POST', '/svc/prompts.json', {prompt: {name: 'Rules', code: 'rules_h', content: 'Be kind'}})).json
    await sleep(20)
    const since = new Date().toISOString()
    await sleep(20)
    // The agent: replaces the app's source, edits a record, adds one, deletes the prompt.
    expect((await api('PATCH', `/svc/apps/${app.id}.json`, {app: {source_code: '<p>agent</p>'}}, MCP)).status).toBe(200)
    expect((await api('PATCH', `/svc/dbs/${db.id}/records/${note.id}.json`, {record: {data: {text: 'changed'}}}, MCP)).status).toBe(200)
    const added = (await api('POST', `/svc/dbs/${db.id}/records.json`, {record: {data: {text: 'spam'}}}, MCP)).json
    expect((await api('DELETE', `/svc/prompts/${prompt.id}.json`, undefined, MCP)).status).toBe(204)
    // Someone else, through the API, after: not the agent's, left alone.
    const other = (await api('POST', `/svc/dbs/${db.id}/records.json`, {record: {data: {text: 'mine'}}})).json

    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/')
      await page.locator('header nav a[data-tab=history]').click()
      await page.waitForURL(/#\/history$/)
      await page.locator('[data-testid=activity] tbody tr').first().waitFor()
      // The filter form with the keyboard: the door, then Show.
      await page.getByTestId('filter-door').focus()
      await page.getByTestId('filter-door').selectOption('mcp')
      await page.getByTestId('filter-door').press('Tab')
      await page.getByTestId('apply-filters').focus()
      await page.keyboard.press('Enter')
      await page.waitForURL(/#\/history\?door=mcp$/)
      const rows = page.locator('[data-testid=activity] tbody tr')
      await poll(async () => (await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-door')))).every((d) => d === 'mcp')).toBe(true)
      expect(await rows.count()).toBeGreaterThanOrEqual(4)
      // Without a time the undo says what it needs.
      expect(await page.getByTestId('undo-preview').count()).toBe(0)

      // Since the agent started (a shared link carries the time): exactly its four changes.
      await page.goto(`${site()}/#/history?door=mcp&since=${encodeURIComponent(since)}`)
      await poll(() => rows.count()).toBe(4)
      expect(await page.getByTestId('filter-since-time').inputValue()).not.toBe('')
      await page.getByTestId('undo-preview').click()
      const dry = page.getByTestId('undo-dry-run')
      await dry.waitFor()
      const planned = await dry.locator('[data-testid=undo-restored] li').evaluateAll((lis) => lis.map((li) => `${li.getAttribute('data-kind')}:${li.getAttribute('data-id')}`).sort())
      expect(planned).toEqual([`app:${app.id}`, `prompt:${prompt.id}`, `record:${added.id}`, `record:${note.id}`].sort())
      expect(await dry.textContent()).toContain('4 resources would be restored')
      // A dry run writes nothing.
      expect((await api('GET', `/svc/apps/${app.id}.json`)).json.source_code).toBe('<p>agent</p>')

      await page.getByTestId('undo-confirm').click()
      await poll(() => page.getByTestId('undo-done').textContent()).toContain('Restored 4 resources')
      expect((await api('GET', `/svc/apps/${app.id}.json`)).json).toEqual(appBefore)
      expect((await api('GET', `/svc/dbs/${db.id}/records/${note.id}.json`)).json.data).toEqual({text: 'keep'})
      expect((await api('GET', `/svc/dbs/${db.id}/records/${added.id}.json`)).status).toBe(404)
      expect((await api('GET', `/svc/prompts/${prompt.id}.json`)).json.content).toBe('Be kind')
      expect((await api('GET', `/svc/dbs/${db.id}/records/${other.id}.json`)).status).toBe(200)
      // The undo is in the history too, through the console.
      await page.getByTestId('undo-undo').click()
      await page.waitForURL(/door=console/)
      await poll(() => page.locator('[data-testid=activity] tbody tr').count()).toBe(4)

      // The record editor and the schema editor link to their History panels: the record's three versions.
      await page.goto(`${site()}/#/dbs/notes-h/records/${note.id}`)
      await page.getByTestId('history-link').click()
      await page.waitForURL(new RegExp(`#/history/record/${note.id}$`))
      await poll(() => page.locator('[data-testid=versions] tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-op')))).toEqual(['restore', 'update', 'create'])
      expect(await page.getByTestId('open-editor').getAttribute('href')).toBe(`#/dbs/${db.id}/records/${note.id}`)
      await page.goto(`${site()}/#/dbs/notes-h/schema`)
      await page.getByTestId('history-link').click()
      await page.waitForURL(new RegExp(`#/history/db/${db.id}$`))
      await poll(() => page.locator('[data-testid=versions] tbody tr').count()).toBe(1)
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('has no serious or critical axe violation on the history screens, light and dark, desktop and phone width; nothing scrolls sideways', async () => {
    const prompt = (await api('POST', '/svc/prompts.json', {prompt: {name: 'Axe history', code: 'axe_history', content: 'One\ntwo\n'}})).json
    await api('PATCH', `/svc/prompts/${prompt.id}.json`, {prompt: {content: 'One\nthree\n'}}, MCP)
    const entries = (await api('GET', `/svc/history.json?kind=prompt&id=${prompt.id}`)).json
    const app = (await api('POST', '/svc/apps.json', {app: {name: 'Axe binned', source_code: '<p>x</p>', app_engine: 'html'}})).json
    await api('DELETE', `/svc/apps/${app.id}.json`)
    const browser = await launchChromium({bypassCSP: true})
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/history')
      const screens: Array<[string, (p: Page) => Promise<unknown>]> = [
        ['#/history', (p) => p.locator('[data-testid=activity] tbody tr').first().waitFor()],
        [`#/history?door=mcp&since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`, async (p) => {
          await p.locator('[data-testid=activity] tbody tr').first().waitFor()
          await p.getByTestId('undo-preview').click()
          await p.getByTestId('undo-dry-run').waitFor()
        }],
        ['#/history/trash', (p) => p.locator('[data-testid=trash] tbody tr').first().waitFor()],
        [`#/history/prompt/${prompt.id}?v=${entries[1].bookmark}`, (p) => p.locator('[data-testid=diff] [data-line=add]').first().waitFor()],
        [`#/history/${entries[0].bookmark}`, (p) => p.locator('[data-testid=diff] [data-line=add]').first().waitFor()],
      ]
      const found: string[] = []
      const wide: string[] = []
      for (const [scheme, width] of [['light', 1280], ['dark', 1280], ['dark', 360]] as const) {
        await page.emulateMedia({colorScheme: scheme})
        await page.setViewportSize({width, height: 800})
        for (const [hash, ready] of screens) {
          await page.goto(`${site()}/${hash}`)
          await ready(page)
          found.push(...await axeScan(page, `${scheme} ${width} ${hash}`))
          if (width === 360 && await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1)) wide.push(hash)
        }
      }
      // An admin's eight sections (Activity among them) keep to two rows at 360 px.
      expect(await page.locator('header nav a').evaluateAll((links) => new Set(links.map((a) => Math.round(a.getBoundingClientRect().top))).size)).toBeLessThanOrEqual(2)
      // The confirmation dialog open.
      await page.goto(`${site()}/#/history/prompt/${prompt.id}?v=${entries[1].bookmark}`)
      await page.getByTestId('restore').click()
      await page.getByRole('dialog').waitFor()
      found.push(...await axeScan(page, 'restore dialog'))
      expect(found).toEqual([])
      expect(wide).toEqual([])
    } finally {
      await browser.close()
    }
  }, 300_000)
})

