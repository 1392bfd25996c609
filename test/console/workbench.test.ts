// The console as a data workbench (issue 27), in Debian's Chromium, on SQLite and (with
// SVC_TEST_DATABASE_URL) on PostgreSQL: screens with URLs, the records grid (paging, sort, the
// search box in the URL, back/forward, bulk delete, CSV/NDJSON export), dark mode, 360 px, axe.
import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import type {Page} from 'playwright-core'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {chromiumNotice, describeWithChromium, launchChromium} from '../helpers/browser.js'
import {svc} from '../helpers/cli.js'
import {createWorld, overHttp, type Transport, type World} from '../helpers/world.js'

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js')
const AUTHORS = ['Ada Lovelace', 'Alan Turing', 'Grace Hopper']
const BOOKS = 45

let world: World
let http: Transport
let token: string
let dbId: number

async function api(method: string, path: string, body?: unknown) {
  const res = await http.fetch(path, {method, headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'}, body: body === undefined ? undefined : JSON.stringify(body)})
  const text = await res.text()
  return {status: res.status, json: text ? JSON.parse(text) : undefined}
}

beforeAll(async () => {
  world = await createWorld()
  http = await overHttp(world.app)
  token = world.users.admin!.token
  const db = await api('POST', '/svc/dbs.json', {db: {name: 'Library', code: 'library', schema: {
    fields: {title: {type: 'string', required: true}, author: 'string', pages: 'integer', note: 'text'},
    indexed_fields: ['title', 'author', 'pages'],
  }}})
  expect(db.status).toBe(201)
  dbId = db.json.id
  const records = Array.from({length: BOOKS}, (_, i) => ({data: {title: `Book ${String(i + 1).padStart(2, '0')}`, author: AUTHORS[i % 3], pages: (i + 1) * 10, note: i === 0 ? 'a "quoted", note' : null}}))
  expect((await api('POST', `/svc/dbs/${dbId}/import.json`, {records})).status).toBe(201)
}, 180_000)

afterAll(async () => {
  await http?.close()
  await world?.close()
})

chromiumNotice()

/** Signs in through the login form, then opens `hash` (a shared link). */
async function signedIn(page: Page, hash: string) {
  await page.goto(`${http.origin}/`)
  await page.fill('#token', token)
  await page.click('button[type=submit]')
  await page.waitForSelector('[data-testid=who]', {state: 'attached'})
  await page.goto(`${http.origin}/${hash}`)
}
const firstCell = (page: Page, column: string) => page.evaluate((c) => {
  const table = document.querySelector('[data-testid=records]')!
  const index = [...table.querySelectorAll('thead th')].findIndex((th) => th.querySelector(`[data-sort="${c}"]`))
  return table.querySelector(`tbody tr td:nth-child(${index + 1})`)?.textContent ?? null
}, column)
const rowCount = (page: Page) => page.locator('[data-testid=records] tbody tr[data-id]').count()
const hashParams = (page: Page) => new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '')

describeWithChromium('console workbench in Chromium', () => {
  it('walks the records grid: pages, sorts, searches in the URL, back/forward, bulk delete, export', async () => {
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dbs')
      await page.click('[data-testid=dbs] a[data-db=library]')
      await page.waitForURL(/#\/dbs\/library$/)
      await expect.poll(() => rowCount(page), {timeout: 60_000}).toBe(20)
      // The count arrives after the page.
      await expect.poll(() => page.textContent('[data-testid=range]'), {timeout: 60_000}).toBe('1–20 of 45')
      expect(await firstCell(page, 'title')).toBe('Book 45')

      // Paging: links, each page its own URL; the last page has no Next.
      await page.click('[data-testid=next]')
      await page.waitForURL(/offset=20/)
      await expect.poll(() => firstCell(page, 'title')).toBe('Book 25')
      await page.click('[data-testid=next]')
      await page.waitForURL(/offset=40/)
      await expect.poll(() => rowCount(page)).toBe(5)
      await expect.poll(() => page.locator('[data-testid=next]').count()).toBe(0)
      await page.goBack()
      await page.waitForURL(/offset=20/)
      await expect.poll(() => firstCell(page, 'title')).toBe('Book 25')
      await page.goForward()
      await expect.poll(() => firstCell(page, 'title')).toBe('Book 05')

      // Sort by a column: ascending, then descending; the sort is in the URL and the header says it.
      await page.click('[data-sort=pages]')
      await page.waitForURL(/sort=pages/)
      expect(hashParams(page).get('offset')).toBeNull()
      await expect.poll(() => firstCell(page, 'pages')).toBe('10')
      expect(await page.getAttribute('th:has([data-sort=pages])', 'aria-sort')).toBe('ascending')
      await page.click('[data-sort=pages]')
      await page.waitForURL(/sort=-pages/)
      await expect.poll(() => firstCell(page, 'pages')).toBe('450')

      // The search box: completion of a field name, then a filter with a wildcard, kept in the URL.
      const box = page.getByRole('combobox', {name: 'Search'})
      await box.fill('')
      await box.pressSequentially('auth')
      await page.getByRole('option', {name: 'author:'}).waitFor()
      await box.press('ArrowDown')
      await box.press('Enter')
      await expect.poll(() => box.inputValue()).toBe('author:')
      await box.pressSequentially('ada*')
      await box.press('Enter')
      await page.waitForURL(/filter%5Bauthor%5D=ada\*/)
      expect(hashParams(page).get('sort')).toBe('-pages')
      await expect.poll(() => rowCount(page)).toBe(15)
      expect(await firstCell(page, 'author')).toBe('Ada Lovelace')
      await expect.poll(() => page.textContent('[data-testid=range]')).toBe('1–15 matching · 45 in the table')
      // A q fragment restricted to one field with in:.
      await box.fill('in:title 4')
      await box.press('Enter')
      await page.waitForURL(/search_in=title/)
      await expect.poll(() => rowCount(page)).toBe(10) // Book 04, 14, 24, 34, 40-45
      await page.goBack()
      await page.waitForURL(/filter%5Bauthor%5D=ada/)
      await expect.poll(() => rowCount(page)).toBe(15)
      await expect.poll(() => box.inputValue()).toBe('author:ada*')

      // A shared link lands on the same screen with the same query.
      const shared = page.url()
      const other = await browser.context.newPage()
      await other.goto(shared)
      await expect.poll(() => rowCount(other), {timeout: 60_000}).toBe(15)
      expect(await other.getByRole('combobox', {name: 'Search'}).inputValue()).toBe('author:ada*')
      await other.close()

      // Export the current query (15 of Ada's books, newest pages first) as CSV.
      const [csv] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-csv]')])
      expect(csv.suggestedFilename()).toBe('library.csv')
      const csvLines = readFileSync((await csv.path())!, 'utf8').trimEnd().split('\r\n')
      expect(csvLines[0]).toBe('id,title,author,pages,note,created_at,updated_at')
      expect(csvLines).toHaveLength(16)
      expect(csvLines[1]).toMatch(/^\d+,Book 43,Ada Lovelace,430,,/)
      expect(csvLines.at(-1)).toMatch(/^\d+,Book 01,Ada Lovelace,10,"a ""quoted"", note",/)

      // Bulk delete: two selected, a confirmation that can be cancelled, then confirmed.
      await page.goto(`${http.origin}/#/dbs/library?sort=pages`)
      await expect.poll(() => firstCell(page, 'title')).toBe('Book 01')
      const ids = await page.locator('[data-testid=records] tbody tr[data-id]').evaluateAll((rows) => rows.slice(0, 2).map((r) => Number(r.getAttribute('data-id'))))
      await page.getByRole('checkbox', {name: `Select record ${ids[0]}`, exact: true}).check()
      await page.getByRole('checkbox', {name: `Select record ${ids[1]}`, exact: true}).check()
      await page.click('[data-testid=bulk-delete]')
      const dialog = page.getByRole('dialog', {name: 'Delete 2 records?'})
      await dialog.waitFor()
      await dialog.getByRole('button', {name: 'Cancel'}).click()
      await dialog.waitFor({state: 'hidden'})
      expect((await api('GET', `/svc/dbs/${dbId}/records/${ids[0]}.json`)).status).toBe(200)
      await page.click('[data-testid=bulk-delete]')
      await dialog.getByRole('button', {name: 'Delete 2'}).click()
      await expect.poll(() => page.textContent('[data-testid=status]')).toBe('Deleted 2 records.')
      await expect.poll(() => firstCell(page, 'title')).toBe('Book 03')
      await expect.poll(() => page.textContent('[data-testid=range]')).toBe('1–20 of 43')
      for (const id of ids) expect((await api('GET', `/svc/dbs/${dbId}/records/${id}.json`)).status).toBe(404)

      // NDJSON of the whole table is what `svc db export` writes.
      await page.goto(`${http.origin}/#/dbs/library`)
      await expect.poll(() => rowCount(page)).toBe(20)
      const [ndjson] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-ndjson]')])
      expect(ndjson.suggestedFilename()).toBe('library.ndjson')
      const exported = await svc(['db', 'export', 'library', '-o', '-', '--url', http.origin, '--token', token])
      expect(exported.code).toBe(0)
      expect(readFileSync((await ndjson.path())!, 'utf8')).toBe(exported.stdout)
      expect(exported.stdout.trimEnd().split('\n')).toHaveLength(43)
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('follows the system colour scheme, with a toggle that is kept', async () => {
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await page.emulateMedia({colorScheme: 'dark'})
      await signedIn(page, '#/dbs/library')
      const theme = () => page.evaluate(() => [document.documentElement.dataset.theme, getComputedStyle(document.documentElement).backgroundColor])
      await expect.poll(theme).toEqual(['dark', 'rgb(18, 21, 28)'])
      const toggle = page.getByRole('button', {name: /^Color theme: system/})
      await toggle.click()
      await expect.poll(theme).toEqual(['light', 'rgb(244, 245, 248)'])
      await page.reload()
      await page.getByRole('button', {name: /^Color theme: light/}).waitFor()
      await expect.poll(theme).toEqual(['light', 'rgb(244, 245, 248)'])
      await page.getByRole('button', {name: /^Color theme: light/}).click()
      await expect.poll(theme).toEqual(['dark', 'rgb(18, 21, 28)'])
      await page.getByRole('button', {name: /^Color theme: dark/}).click()
      await page.emulateMedia({colorScheme: 'light'})
      await expect.poll(theme).toEqual(['light', 'rgb(244, 245, 248)'])
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('is usable 360 px wide: no sideways page scroll, the grid controls on screen', async () => {
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await page.setViewportSize({width: 360, height: 740})
      await signedIn(page, '#/dbs/library')
      await expect.poll(() => rowCount(page)).toBe(20)
      for (const hash of ['#/dbs/library', '#/dashboards', '#/prompts', '#/dbs', '#/apps', '#/runs']) {
        await page.goto(`${http.origin}/${hash}`)
        await page.locator('main h1').first().waitFor()
        const wide = await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 361 && !e.closest('.scroll')).map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`).slice(0, 8))
        expect(await page.evaluate(() => document.documentElement.scrollWidth), `${hash}: ${wide.join(', ')}`).toBeLessThanOrEqual(360)
      }
      await page.goto(`${http.origin}/#/dbs/library`)
      await expect.poll(() => rowCount(page)).toBe(20)
      for (const control of [page.getByRole('combobox', {name: 'Search'}), page.getByRole('button', {name: 'Export CSV'}), page.getByRole('button', {name: 'Search', exact: true}), page.getByTestId('next')]) {
        const box = (await control.boundingBox())!
        expect(box.x).toBeGreaterThanOrEqual(0)
        expect(box.x + box.width).toBeLessThanOrEqual(360)
      }
      // The table scrolls inside its own box.
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('[data-testid=records]')!.parentElement!).overflowX)).toBe('auto')
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('has no serious or critical axe violation on any screen, light or dark', async () => {
    const browser = await launchChromium({bypassCSP: true})
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dashboards')
      const screens: Array<[string, (p: Page) => Promise<unknown>]> = [
        ['#/dashboards', (p) => p.getByTestId('dashboard-name').waitFor()],
        ['#/prompts', (p) => p.getByTestId('playground').waitFor()],
        ['#/dbs', (p) => p.locator('[data-testid=dbs] a[data-db=library]').waitFor()],
        ['#/dbs/library', (p) => expect.poll(() => rowCount(p)).toBeGreaterThan(0)],
        ['#/dbs/library?filter[author]=ada*&sort=-pages', (p) => expect.poll(() => rowCount(p)).toBeGreaterThan(0)],
        ['#/apps', (p) => p.getByTestId('apps').waitFor()],
        ['#/runs', (p) => p.getByTestId('runs').waitFor()],
        ['#/nowhere', (p) => p.getByRole('heading', {name: 'Not found'}).waitFor()],
      ]
      const found: string[] = []
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({colorScheme: scheme})
        for (const [hash, ready] of screens) {
          await page.goto(`${http.origin}/${hash}`)
          await ready(page)
          found.push(...await scan(page, `${scheme} ${hash}`))
        }
        // The grid with its completion list open and with the delete confirmation open.
        await page.goto(`${http.origin}/#/dbs/library`)
        await expect.poll(() => rowCount(page)).toBeGreaterThan(0)
        await page.getByRole('combobox', {name: 'Search'}).pressSequentially('a')
        await page.getByRole('option').first().waitFor()
        found.push(...await scan(page, `${scheme} completion`))
        await page.getByRole('checkbox', {name: 'Select all records on this page'}).check()
        await page.click('[data-testid=bulk-delete]')
        await page.getByRole('dialog').waitFor()
        found.push(...await scan(page, `${scheme} confirm dialog`))
        await page.keyboard.press('Escape')
      }
      expect(found).toEqual([])
    } finally {
      await browser.close()
    }
  }, 300_000)
})

/** axe-core (WCAG 2 A/AA rules) on the page as it is: its serious and critical violations, one line each. */
async function scan(page: Page, where: string): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({path: AXE})
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as {axe: {run(context: Document, options: object): Promise<{violations: Array<{id: string; impact: string; nodes: Array<{target: string[]}>}>}>}}).axe
    const result = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}})
    return result.violations.map((v) => ({id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 3)}))
  })
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${where}: ${v.id} (${v.impact}) at ${v.targets.join(', ')}`)
}
