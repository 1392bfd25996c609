// The console as a data workbench (issue 27), in Debian's Chromium, on SQLite and (with
// SVC_TEST_DATABASE_URL) on PostgreSQL: screens with URLs, the records grid (paging, sort, the
// search box in the URL, back/forward, bulk delete, CSV/NDJSON export), dark mode, 360 px, axe.
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Page} from 'playwright-core'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {axeScan, chromiumNotice, describeWithChromium, launchChromium, signInThroughForm} from '../helpers/browser.js'
import {svc} from '../helpers/cli.js'
import {createWorld, overHttp, type Transport, type World} from '../helpers/world.js'

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
  expect((await api('POST', '/svc/dbs.json', {db: {name: 'Shop', code: 'shop', schema: {tables: {orders: {fields: {total: 'number'}}, customers: {fields: {email: 'string'}}}}}})).status).toBe(201)
  expect((await api('POST', '/svc/prompts.json', {prompt: {name: 'Greeting', code: 'greeting', content: 'Hello {{ who }}'}})).status).toBe(201)
}, 180_000)

afterAll(async () => {
  await http?.close()
  await world?.close()
})

chromiumNotice()

/** Signs in through the login form, then opens `hash` (a shared link). */
async function signedIn(page: Page, hash: string) {
  await signInThroughForm(page, http.origin, token)
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

  it('exports then re-imports: NDJSON with a progress bar; a bad file gets svc db import\'s per-line errors and imports nothing', async () => {
    const browser = await launchChromium()
    try {
      const schema = {fields: {title: {type: 'string', required: true}, pages: 'integer'}, indexed_fields: ['title']}
      const shelf = (await api('POST', '/svc/dbs.json', {db: {name: 'Shelf', code: 'shelf', schema}})).json
      const records = Array.from({length: 1200}, (_, i) => ({data: {title: `Vol ${i + 1}`, pages: i}}))
      for (let i = 0; i < records.length; i += 600) expect((await api('POST', `/svc/dbs/${shelf.id}/import.json`, {records: records.slice(i, i + 600)})).status).toBe(201)
      const copy = (await api('POST', '/svc/dbs.json', {db: {name: 'Shelf copy', code: 'shelf-copy', schema}})).json
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dbs/shelf')
      await expect.poll(() => rowCount(page)).toBe(20)
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-ndjson]')])
      const exported = readFileSync((await download.path())!, 'utf8')
      expect(exported.trimEnd().split('\n')).toHaveLength(1200)

      // A bad file: the same per-line messages as `svc db import`, and nothing imported.
      const dir = mkdtempSync(join(tmpdir(), 'svc-import-'))
      const bad = join(dir, 'bad.ndjson')
      writeFileSync(bad, ['{"title": "ok"}', '{"title": "x", "pages": "many"}', '', '{"pages": 3}', '{"table_name": null, "data": {"title": "y", "pages": 1.5}}'].join('\n') + '\n')
      const cli = await svc(['db', 'import', 'shelf-copy', bad, '--url', http.origin, '--token', token])
      expect(cli.code).not.toBe(0)
      const expected = ['line 2: pages must be an integer', 'line 4: title is required', 'line 5: pages must be an integer']
      for (const line of expected) expect(cli.stderr).toContain(line)
      await page.goto(`${http.origin}/#/dbs/shelf-copy`)
      await page.getByRole('table', {name: 'Records of Shelf copy'}).waitFor()
      const importInput = page.getByLabel('Import NDJSON')
      await importInput.setInputFiles(bad)
      const problems = page.getByTestId('import-errors')
      await problems.waitFor()
      expect(await problems.locator('li').allTextContents()).toEqual(expected)
      expect(await page.getByTestId('status').textContent()).toBe('Nothing imported from bad.ndjson.')
      expect((await api('GET', `/svc/dbs/${copy.id}/records.json`)).json).toEqual([])
      // A line that is no JSON is named too (the CLI stops at it).
      writeFileSync(bad, '{"title": "ok"}\n{nope\n')
      await importInput.setInputFiles(bad)
      await expect.poll(() => problems.locator('li').allTextContents()).toEqual(['line 2 of bad.ndjson is not JSON'])

      // The export re-imported, with a progress bar through both phases (checked, then imported, batch by batch).
      const file = join(dir, 'shelf.ndjson')
      writeFileSync(file, exported)
      await page.evaluate(() => {
        const seen: string[] = []
        ;(window as unknown as {seen: string[]}).seen = seen
        new MutationObserver(() => {
          const bar = document.querySelector<HTMLProgressElement>('#import-bar')
          const text = bar && `${bar.labels[0]?.textContent} ${bar.value}/${bar.max}`
          if (text && seen.at(-1) !== text) seen.push(text)
        }).observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true})
      })
      await importInput.setInputFiles(file)
      await expect.poll(() => page.getByTestId('status').textContent(), {timeout: 120_000}).toBe('Imported 1200 records from shelf.ndjson.')
      expect(await problems.count()).toBe(0)
      const seen = await page.evaluate(() => (window as unknown as {seen: string[]}).seen)
      expect(seen).toEqual(expect.arrayContaining(['Checking… 500/1200', 'Checking… 1200/1200', 'Importing… 500/1200', 'Importing… 1000/1200']))
      expect(await page.getByRole('progressbar').count()).toBe(0)
      await expect.poll(() => page.textContent('[data-testid=range]')).toBe('1–20 of 1200')
      const copied = await svc(['db', 'export', 'shelf-copy', '-o', '-', '--url', http.origin, '--token', token])
      const dataOf = (ndjson: string) => ndjson.trimEnd().split('\n').map((l) => JSON.parse(l).data)
      expect(dataOf(copied.stdout)).toEqual(dataOf(exported))
      rmSync(dir, {recursive: true, force: true})
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('creates a db with a schema from nothing, then changes the schema through the diff (data loss and invalid records shown, nothing applied until confirmed)', async () => {
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dbs')
      await page.getByRole('link', {name: 'New database'}).click()
      await page.waitForURL(/#\/new\/db$/)
      await page.getByRole('textbox', {name: 'Name', exact: true}).fill('Recipes')
      await page.getByRole('textbox', {name: 'Code', exact: true}).fill('recipes')
      await page.getByRole('textbox', {name: 'Name of field 1'}).fill('title')
      await page.getByRole('checkbox', {name: 'title is required'}).check()
      await page.getByRole('checkbox', {name: 'title is indexed'}).check()
      await page.getByRole('button', {name: 'Add a field'}).click()
      await page.getByRole('textbox', {name: 'Name of field 2'}).fill('servings')
      await page.getByRole('combobox', {name: 'Type of servings'}).selectOption('integer')
      await page.getByRole('button', {name: 'Review the changes'}).click()
      const diff = page.getByTestId('schema-diff')
      await diff.waitFor()
      expect(await diff.locator('li').allTextContents()).toEqual(expect.arrayContaining([
        '+ database recipes (new)', '+ field title (string, required)', '+ field servings (integer)', expect.stringMatching(/^\+ index title → /),
      ]))
      expect((await api('GET', '/svc/dbs/recipes.json')).status).toBe(404)
      await page.getByRole('button', {name: 'Apply', exact: true}).click()
      await page.waitForURL(/#\/dbs\/recipes$/)
      const created = (await api('GET', '/svc/dbs/recipes.json')).json
      expect(created).toMatchObject({name: 'Recipes', schema: {fields: {title: {type: 'string', required: true}, servings: 'integer'}, indexed_fields: ['title']}})

      // Records to be judged by the next schema: one holds servings, one a rating that is no integer.
      await api('POST', `/svc/dbs/${created.id}/records.json`, {record: {data: {title: 'Soup', servings: 4}}})
      const cake = (await api('POST', `/svc/dbs/${created.id}/records.json`, {record: {data: {title: 'Cake', rating: 'five'}}})).json
      await page.getByRole('link', {name: 'Schema'}).click()
      await page.waitForURL(/#\/dbs\/recipes\/schema$/)
      await page.getByRole('button', {name: 'Remove servings'}).click()
      await page.getByRole('button', {name: 'Add a field'}).click()
      await page.getByRole('textbox', {name: 'Name of field 2'}).fill('rating')
      await page.getByRole('combobox', {name: 'Type of rating'}).selectOption('integer')
      await page.getByRole('button', {name: 'Review the changes'}).click()
      await diff.waitFor()
      expect(await diff.locator('li').allTextContents()).toEqual(['- field servings (integer)', '+ field rating (integer)'])
      expect(await page.getByTestId('data-loss').textContent()).toBe('field servings (integer) holds data in 1 record: applying drops it.')
      const invalid = page.getByTestId('invalid-records')
      expect(await invalid.locator('li').allTextContents()).toEqual([`#${cake.id} rating: must be an integer`])
      expect(await invalid.getByRole('link').getAttribute('href')).toBe(`#/dbs/recipes/records/${cake.id}`)
      // Nothing applied yet.
      expect((await api('GET', `/svc/dbs/${created.id}.json`)).json.schema.fields).toHaveProperty('servings')
      await page.getByRole('button', {name: 'Apply anyway'}).click()
      await page.waitForURL(/#\/dbs\/recipes$/)
      expect((await api('GET', `/svc/dbs/${created.id}.json`)).json.schema).toEqual({fields: {title: {type: 'string', required: true}, rating: 'integer'}, indexed_fields: ['title']})

      // A stale schema change: someone else changes the db while the form is open; Apply is a 412
      // that lists their change, nothing is applied; keeping my form and reviewing again applies it.
      await page.getByRole('link', {name: 'Schema'}).click()
      await page.waitForURL(/#\/dbs\/recipes\/schema$/)
      await page.getByRole('button', {name: 'Add a field'}).click()
      await page.getByRole('textbox', {name: 'Name of field 3'}).fill('notes')
      await page.getByRole('combobox', {name: 'Type of notes'}).selectOption('text')
      await api('PATCH', `/svc/dbs/${created.id}.json`, {db: {name: 'Recipes (theirs)'}})
      await page.getByRole('button', {name: 'Review the changes'}).click()
      await page.getByRole('button', {name: 'Apply', exact: true}).click()
      const stale = page.getByRole('region', {name: 'Changed by someone else'})
      await stale.waitFor()
      expect(await stale.locator('li').allTextContents()).toEqual(['~ name: "Recipes" → "Recipes (theirs)"'])
      expect((await api('GET', `/svc/dbs/${created.id}.json`)).json.schema.fields).not.toHaveProperty('notes')
      await stale.getByRole('button', {name: 'Keep my form (review it against theirs)'}).click()
      await page.getByRole('button', {name: 'Review the changes'}).click()
      await expect.poll(() => diff.locator('li').allTextContents()).toEqual(['~ name: "Recipes (theirs)" → "Recipes"', '+ field notes (text)'])
      await page.getByRole('button', {name: 'Apply', exact: true}).click()
      await page.waitForURL(/#\/dbs\/recipes$/)
      expect((await api('GET', `/svc/dbs/${created.id}.json`)).json).toMatchObject({name: 'Recipes', schema: {fields: {notes: 'text'}}})
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('makes a db public with a plain-language summary, then tries it as an anonymous visitor through the real public endpoints', async () => {
    const browser = await launchChromium()
    try {
      const guests = (await api('POST', '/svc/dbs.json', {db: {name: 'Guests', code: 'guests', schema: {fields: {name: 'string', message: {type: 'string', required: true}, visitor: 'string'}}}})).json
      await api('POST', `/svc/dbs/${guests.id}/records.json`, {record: {data: {name: 'Owner', message: 'private note', visitor: 'someone'}}})
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dbs/guests')
      await page.getByRole('link', {name: 'Public methods'}).click()
      await page.waitForURL(/#\/dbs\/guests\/public$/)
      const summary = page.getByRole('region', {name: 'What this allows'})
      await expect.poll(() => summary.locator('p').allTextContents()).toEqual(['Nobody outside your account can reach this database: no public method is enabled.'])
      for (const m of ['list', 'get', 'create']) await page.getByRole('checkbox', {name: m, exact: true}).check()
      await page.getByRole('checkbox', {name: 'Each visitor sees only their own records (a cookie in their browser)'}).check()
      expect(await summary.locator('p').allTextContents()).toEqual([
        'Anyone on the internet can list, read and create records in this database, without signing in.',
        "Each visitor lists and reads only their own records (the field visitor holds the visitor's browser key (a cookie)).",
        "Create fills visitor with the visitor's browser key (a cookie), whatever the visitor sends.",
        'Addresses: /svc/db/guests/list, /svc/db/guests/get, /svc/db/guests/create.',
      ])
      expect((await api('GET', `/svc/dbs/${guests.id}.json`)).json.public_methods).toEqual({})
      await page.getByTestId('save-public').click()
      await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Saved: the public methods are live.')
      expect((await api('GET', `/svc/dbs/${guests.id}.json`)).json.public_methods).toEqual({
        list: {scope_by: 'visitor'}, get: {scope_by: 'visitor'}, create: {auto_fields: {visitor: '{cookie_key}'}},
      })

      // The anonymous visitor: a create (its visitor field stamped, not forged), a list that shows
      // no one else's record, a method that is not enabled.
      const tryPanel = page.getByRole('region', {name: 'Try as an anonymous visitor'})
      const answer = page.getByTestId('anonymous-answer')
      await tryPanel.getByRole('combobox', {name: 'Method'}).selectOption('create')
      await tryPanel.getByRole('textbox', {name: 'data (JSON)'}).fill('{"name": "Eve", "message": "hello", "visitor": "forged"}')
      await tryPanel.getByRole('button', {name: 'Call as an anonymous visitor'}).click()
      await expect.poll(() => answer.locator('strong').textContent()).toBe('Answer: OK')
      const created = JSON.parse((await answer.locator('pre').textContent())!)
      expect(created.data).toMatchObject({name: 'Eve', message: 'hello'})
      expect(created.data.visitor).not.toBe('forged')
      expect(created.data.visitor.length).toBeGreaterThan(8)
      expect((await api('GET', `/svc/dbs/${guests.id}/records/${created.id}.json`)).json.data.visitor).toBe(created.data.visitor)
      await tryPanel.getByRole('combobox', {name: 'Method'}).selectOption('list')
      await tryPanel.getByRole('button', {name: 'Call as an anonymous visitor'}).click()
      await expect.poll(() => answer.locator('pre').textContent()).toBe('[]')
      await tryPanel.getByRole('combobox', {name: 'Method'}).selectOption('delete')
      await tryPanel.getByRole('textbox', {name: 'Record id'}).fill(String(created.id))
      await tryPanel.getByRole('button', {name: 'Call as an anonymous visitor'}).click()
      await expect.poll(() => answer.locator('strong').textContent()).toBe('Answer: 404')
      expect(await answer.locator('pre').textContent()).toContain('method \\"delete\\" is not enabled')
      expect((await api('GET', `/svc/dbs/${guests.id}/records/${created.id}.json`)).status).toBe(200)
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('account admin: creates a user (a 422 beside its field first; the token shown once, copied), then revokes their token', async () => {
    const browser = await launchChromium()
    try {
      await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], {origin: http.origin})
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dbs')
      await page.getByRole('link', {name: 'Account'}).click()
      await page.waitForURL(/#\/account$/)
      const users = page.getByRole('table', {name: 'Users of the account'})
      await users.waitFor()
      expect(await users.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-login')))).toContain('admin')
      await page.getByRole('textbox', {name: 'Login'}).fill('new user')
      await page.getByRole('button', {name: 'Create user'}).click()
      await expect.poll(() => page.locator('#user-login-error').textContent()).toBe('login must be 1-64 characters of letters, digits, _ . @ + -')
      expect(await page.getByRole('textbox', {name: 'Login'}).getAttribute('aria-invalid')).toBe('true')
      await page.getByRole('textbox', {name: 'Login'}).fill('erin')
      await page.getByRole('textbox', {name: 'Teams (comma-separated)'}).fill('support, sales')
      await page.getByRole('textbox', {name: 'Department'}).fill('north')
      await page.getByRole('combobox', {name: 'Role'}).selectOption('manager')
      await page.getByRole('button', {name: 'Create user'}).click()
      const tokenBox = page.getByRole('textbox', {name: 'API token of erin'})
      await tokenBox.waitFor()
      const token = await tokenBox.inputValue()
      await page.getByRole('region', {name: 'Token of erin'}).getByRole('button', {name: 'Copy'}).click()
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(token)
      expect(await users.locator('tr[data-login=erin]').textContent()).toContain('managersupport, salesnorth')
      const asErin = await http.fetch('/svc/me.json', {headers: {authorization: `Bearer ${token}`}})
      expect(await asErin.json()).toMatchObject({login: 'erin', role: 'manager'})
      // A reload shows the user, never the token again.
      await page.reload()
      await users.locator('tr[data-login=erin]').waitFor()
      expect(await page.getByTestId('new-token').count()).toBe(0)
      expect(await page.content()).not.toContain(token)

      await page.getByRole('button', {name: 'Revoke tokens and sessions of erin'}).click()
      const dialog = page.getByRole('dialog', {name: 'Revoke every token of erin?'})
      await dialog.getByRole('button', {name: 'Revoke'}).click()
      await expect.poll(() => page.getByTestId('account-status').textContent()).toBe('Revoked 1 token and session of erin.')
      expect((await http.fetch('/svc/me.json', {headers: {authorization: `Bearer ${token}`}})).status).toBe(401)
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('columns shown/hidden and their order are saved per user on the server: kept across reloads and browsers, not shared', async () => {
    const browser = await launchChromium()
    const other = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dbs/library')
      await expect.poll(() => rowCount(page)).toBeGreaterThan(0)
      const headers = () => page.locator('[data-testid=records] thead [data-sort]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-sort')))
      expect(await headers()).toEqual(['id', 'title', 'author', 'pages', 'note', 'created_at', 'updated_at'])
      await page.getByText('Columns', {exact: true}).click()
      const panel = page.getByRole('list', {name: 'Columns: shown and order'})
      await panel.getByRole('checkbox', {name: 'note'}).uncheck()
      await panel.getByRole('button', {name: 'Move pages left'}).click()
      await panel.getByRole('button', {name: 'Move pages left'}).click()
      await expect.poll(headers).toEqual(['id', 'pages', 'title', 'author', 'created_at', 'updated_at'])
      expect(await panel.getByRole('checkbox', {name: 'id'}).isDisabled()).toBe(true)
      await expect.poll(async () => (await api('GET', '/svc/me/settings.json')).json.settings[`grid:${dbId}:`]).toEqual({
        hidden: ['note'], order: ['id', 'pages', 'title', 'author', 'note', 'created_at', 'updated_at'],
      })
      // Another browser of the same user: the same columns (the server keeps them, not localStorage).
      const again = await other.context.newPage()
      await signedIn(again, '#/dbs/library')
      await expect.poll(() => again.locator('[data-testid=records] thead [data-sort]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-sort'))))
        .toEqual(['id', 'pages', 'title', 'author', 'created_at', 'updated_at'])
      // Another user of the account: their own (default) columns.
      const alice = world.users.alice!.token
      expect((await http.fetch('/svc/me/settings.json', {headers: {authorization: `Bearer ${alice}`}}).then((r) => r.json())).settings).toEqual({})
      // Back to the defaults for the other tests.
      await panel.getByRole('checkbox', {name: 'note'}).check()
      await api('PATCH', '/svc/me/settings.json', {settings: {[`grid:${dbId}:`]: null}})
    } finally {
      await browser.close()
      await other.close()
    }
  }, 300_000)

  it('creates a record through a validation error (shown beside the field) and a kept draft, then edits, duplicates and deletes it', async () => {
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dbs/library')
      await page.getByTestId('new-record').click()
      await page.waitForURL(/#\/dbs\/library\/new$/)
      // Inputs are generated from the field types and labelled by the field name.
      expect(await page.getByLabel(/^title/).getAttribute('type')).toBe('text')
      expect(await page.getByLabel(/^pages/).getAttribute('type')).toBe('number')
      expect(await page.getByLabel(/^note/).evaluate((e) => e.tagName)).toBe('TEXTAREA')
      await page.getByLabel(/^author/).fill('Edsger Dijkstra')
      await page.getByLabel(/^pages/).fill('12.5')
      // A free-form field added as JSON: bad JSON is caught before anything is sent.
      await page.getByLabel('Name').fill('meta')
      await page.getByLabel('Kind').selectOption('json')
      await page.getByRole('button', {name: 'Add field'}).click()
      await page.getByLabel(/^meta/).fill('{"tags": [1,')
      await page.getByTestId('save').click()
      await expect.poll(() => page.locator('[data-field-error=meta]').textContent()).toContain('is not valid JSON')
      await page.getByLabel(/^meta/).fill('{"tags": [1, 2]}')
      await page.getByTestId('save').click()
      // The API's 422 field map, each message beside its field (title is required, pages an integer).
      await expect.poll(() => page.locator('[data-field-error=title]').textContent()).toBe('title is required')
      expect(await page.locator('[data-field-error=pages]').textContent()).toBe('pages must be an integer')
      expect(await page.getByLabel(/^title/).getAttribute('aria-invalid')).toBe('true')
      expect(await page.locator('.field:has(#field-title) [data-field-error=title]').count()).toBe(1)
      // The unsaved form survives a reload as a local draft.
      await page.reload()
      await page.getByTestId('draft').waitFor()
      expect(await page.getByLabel(/^author/).inputValue()).toBe('Edsger Dijkstra')
      expect(await page.getByLabel(/^meta/).inputValue()).toBe('{"tags": [1, 2]}')
      await page.getByLabel(/^title/).fill('Book 99')
      await page.getByLabel(/^pages/).fill('990')
      await page.getByTestId('save').click()
      await page.waitForURL(/#\/dbs\/library\/records\/\d+\?created=1$/)
      const id = Number(/records\/(\d+)/.exec(page.url())![1])
      const created = (await api('GET', `/svc/dbs/${dbId}/records/${id}.json`)).json
      expect(created.data).toEqual({author: 'Edsger Dijkstra', pages: 990, meta: {tags: [1, 2]}, title: 'Book 99'})
      // Saved: the draft is gone; auto fields are shown, not editable.
      expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('svc-console-draft:')))).toEqual([])
      expect(await page.getByLabel('Automatic fields').textContent()).toContain(created.created_at)
      expect(await page.getByLabel(/^id/).count()).toBe(0)

      // Edit: clear a field, change another.
      await page.getByLabel(/^author/).fill('E. W. Dijkstra')
      await page.getByLabel(/^meta/).fill('')
      await page.getByTestId('save').click()
      await expect.poll(() => page.getByTestId('editor-status').textContent()).toBe(`Saved record #${id}.`)
      const edited = (await api('GET', `/svc/dbs/${dbId}/records/${id}.json`)).json
      expect(edited.data).toMatchObject({author: 'E. W. Dijkstra', title: 'Book 99', pages: 990})
      expect(edited.data.meta ?? null).toBeNull()

      // Duplicate: a new record from this one's values.
      await page.getByTestId('duplicate').click()
      await page.waitForURL(new RegExp(`/new\\?from=${id}$`))
      await expect.poll(() => page.getByLabel(/^title/).inputValue()).toBe('Book 99')
      await page.getByTestId('save').click()
      await page.waitForURL(/records\/\d+\?created=1$/)
      const copy = Number(/records\/(\d+)/.exec(page.url())![1])
      expect(copy).not.toBe(id)
      expect((await api('GET', `/svc/dbs/${dbId}/records/${copy}.json`)).json.data).toMatchObject({title: 'Book 99', author: 'E. W. Dijkstra'})

      // Delete, after a confirmation; back on the grid.
      await page.getByTestId('delete').click()
      await page.getByRole('dialog', {name: `Delete record #${copy}?`}).getByRole('button', {name: 'Delete'}).click()
      await page.waitForURL(/#\/dbs\/library$/)
      expect((await api('GET', `/svc/dbs/${dbId}/records/${copy}.json`)).status).toBe(404)
      // The grid links each record to its editor.
      await page.getByRole('link', {name: `Open record ${id}`, exact: true}).click()
      await page.waitForURL(new RegExp(`records/${id}$`))
      await expect.poll(() => page.getByLabel(/^title/).inputValue()).toBe('Book 99')
      await api('DELETE', `/svc/dbs/${dbId}/records/${id}.json`)
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('edits cells inline: changes queue up, are reviewed as a diff, saved together with Ctrl+S; a refused one stays queued with its error', async () => {
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dbs/library?sort=pages')
      await expect.poll(() => rowCount(page)).toBe(20)
      const [a, b, c] = await page.locator('[data-testid=records] tbody tr[data-id]').evaluateAll((rows) => rows.slice(0, 3).map((r) => Number(r.getAttribute('data-id'))))
      const beforeA = (await api('GET', `/svc/dbs/${dbId}/records/${a}.json`)).json.data
      const before = (await api('GET', `/svc/dbs/${dbId}/records/${c}.json`)).json.data
      await page.getByTestId('edit-cells').click()
      const cellInput = (id: number, field: string) => page.getByRole('textbox', {name: `${field} of record ${id}`, exact: true})
      await cellInput(a!, 'title').fill('Revised title')
      await cellInput(a!, 'title').press('Tab')
      await cellInput(b!, 'pages').fill('41')
      await cellInput(b!, 'pages').press('Tab')
      await cellInput(c!, 'pages').fill('12.5')
      await cellInput(c!, 'pages').press('Tab')
      await cellInput(c!, 'author').fill('Someone Else')
      await cellInput(c!, 'author').press('Tab')
      const queue = page.getByRole('region', {name: 'Pending changes'})
      await expect.poll(() => queue.locator('strong').textContent()).toBe('4 pending changes')
      // Nothing is written before the save.
      expect((await api('GET', `/svc/dbs/${dbId}/records/${a}.json`)).json.data.title).not.toBe('Revised title')
      await queue.getByRole('button', {name: 'Review'}).click()
      const diff = await page.getByTestId('diff').textContent()
      expect(diff).toContain(`#${a} title: "${beforeA.title}" → "Revised title"`)
      expect(diff).toContain(`#${c} author: "${before.author}" → "Someone Else"`)

      await page.keyboard.press('Control+s')
      await expect.poll(() => page.getByTestId('status').textContent()).toBe('Saved 3 of 4 changes. 1 not saved: see the queue.')
      await expect.poll(() => queue.locator('strong').textContent()).toBe('1 pending change')
      expect(await page.getByTestId('diff').textContent()).toContain('pages must be an integer')
      expect(await cellInput(c!, 'pages').getAttribute('aria-invalid')).toBe('true')
      expect((await api('GET', `/svc/dbs/${dbId}/records/${a}.json`)).json.data.title).toBe('Revised title')
      expect((await api('GET', `/svc/dbs/${dbId}/records/${b}.json`)).json.data.pages).toBe(41)
      expect((await api('GET', `/svc/dbs/${dbId}/records/${c}.json`)).json.data).toMatchObject({author: 'Someone Else', pages: before.pages})

      // Discard: the queue empties and the cell shows the stored value again.
      await page.getByTestId('discard-changes').click()
      await queue.waitFor({state: 'hidden'})
      await expect.poll(() => cellInput(c!, 'pages').inputValue()).toBe(String(before.pages))
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('a stale edit gets the 412 view: the other person\'s change is shown, never overwritten unless asked (editor and inline queue)', async () => {
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      const created = (await api('POST', `/svc/dbs/${dbId}/records.json`, {record: {data: {title: 'Stale one', author: 'Ada Lovelace', pages: 7}}})).json
      const stored = async () => (await api('GET', `/svc/dbs/${dbId}/records/${created.id}.json`)).json.data

      // The editor: open, type, someone else saves, then Save → their version beside mine, nothing written.
      await signedIn(page, `#/dbs/library/records/${created.id}`)
      const title = page.getByRole('textbox', {name: /^title/})
      await title.fill('Mine')
      expect((await api('PATCH', `/svc/dbs/${dbId}/records/${created.id}.json`, {record: {data: {title: 'Theirs', pages: 8}}})).status).toBe(200)
      await page.getByTestId('save').click()
      const stale = page.getByRole('region', {name: 'Changed by someone else'})
      await stale.waitFor()
      expect(await stale.locator('tr[data-field=title]').textContent()).toBe('titleStale oneTheirsMine')
      expect(await stale.locator('tr[data-field=pages]').textContent()).toBe('pages787')
      expect(await stored()).toMatchObject({title: 'Theirs', pages: 8})
      expect(await page.getByTestId('editor-error').textContent()).toMatch(/Someone else changed this record/)
      // Keep mine: the fields I did not touch take their value; the next save replaces their title.
      await stale.getByRole('button', {name: 'Keep my edits (save replaces theirs)'}).click()
      await page.getByTestId('save').click()
      await expect.poll(() => page.getByTestId('editor-status').textContent()).toBe(`Saved record #${created.id}.`)
      expect(await stored()).toMatchObject({title: 'Mine', pages: 8})
      // Take theirs: my edit is dropped and the form shows their version.
      await title.fill('Mine again')
      await api('PATCH', `/svc/dbs/${dbId}/records/${created.id}.json`, {record: {data: {title: 'Theirs again'}}})
      await page.getByTestId('save').click()
      await stale.waitFor()
      await stale.getByRole('button', {name: 'Use their version (drop my edits)'}).click()
      await expect.poll(() => title.inputValue()).toBe('Theirs again')
      expect(await stored()).toMatchObject({title: 'Theirs again'})

      // The inline queue: the change stays queued with their value; a second save replaces it knowingly.
      await page.goto(`${http.origin}/#/dbs/library?filter[title]=${encodeURIComponent('Theirs again')}`)
      await expect.poll(() => rowCount(page)).toBe(1)
      await page.getByTestId('edit-cells').click()
      const cell = page.getByRole('textbox', {name: `author of record ${created.id}`, exact: true})
      await cell.fill('Grace Hopper')
      await cell.press('Tab')
      await api('PATCH', `/svc/dbs/${dbId}/records/${created.id}.json`, {record: {data: {author: 'Alan Turing'}}})
      await page.keyboard.press('Control+s')
      await expect.poll(() => page.getByTestId('status').textContent()).toBe('Saved 0 of 1 change. 1 not saved: see the queue.')
      const diff = await page.getByTestId('diff').textContent()
      expect(diff).toContain(`#${created.id} author: "Ada Lovelace" → "Grace Hopper" (now "Alan Turing", changed by someone else)`)
      expect(diff).toContain('save again to replace their version')
      expect(await stored()).toMatchObject({author: 'Alan Turing'})
      await page.keyboard.press('Control+s')
      await expect.poll(() => page.getByTestId('status').textContent()).toBe('Saved 1 of 1 change.')
      expect(await stored()).toMatchObject({author: 'Grace Hopper', title: 'Theirs again'})
      await api('DELETE', `/svc/dbs/${dbId}/records/${created.id}.json`)
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('jumps anywhere with the command palette (Ctrl+K): a db, a table, a prompt', async () => {
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dashboards')
      await page.getByTestId('dashboard-name').waitFor()
      const palette = page.getByRole('dialog', {name: 'Jump to'})
      const input = palette.getByRole('combobox')
      await page.keyboard.press('Control+k')
      await palette.waitFor()
      await input.fill('libr')
      await palette.getByRole('option', {name: /Database Library/}).waitFor()
      await input.press('Enter')
      await page.waitForURL(/#\/dbs\/library$/)
      await palette.waitFor({state: 'hidden'})
      await expect.poll(() => rowCount(page)).toBeGreaterThan(0)

      await page.keyboard.press('Control+k')
      await input.fill('shop customers')
      await palette.getByRole('option', {name: /Table Shop · customers/}).waitFor()
      await input.press('Enter')
      await page.waitForURL(/#\/dbs\/shop\?table_name=customers$/)
      await expect.poll(() => page.getByTestId('table').inputValue()).toBe('customers')

      // The header button opens it too; arrows move through the list.
      await page.getByTestId('jump').click()
      await input.fill('greet')
      await palette.getByRole('option', {name: /Prompt greeting/}).waitFor()
      await input.press('ArrowDown')
      await input.press('ArrowUp')
      await input.press('Enter')
      await page.waitForURL(/#\/prompts\?code=greeting$/)
      // The screen follows the URL (the prompts section loads lazily): its heading, once rendered.
      await expect.poll(() => page.getByRole('heading', {level: 1}).textContent()).toBe('Cascade of greeting')
      // Escape closes it without going anywhere.
      await page.keyboard.press('Control+k')
      await palette.waitFor()
      await page.keyboard.press('Escape')
      await palette.waitFor({state: 'hidden'})
      expect(new URL(page.url()).hash).toBe('#/prompts?code=greeting')
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
      for (const hash of ['#/dbs/library', '#/dbs/library/new', '#/dbs/library/schema', '#/new/db', '#/dbs/library/public', '#/account', '#/dashboards', '#/prompts', '#/dbs', '#/apps', '#/runs']) {
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
      // The header's sections wrap in rows (not one per line beside the brand), and a table keeps its
      // words whole (scrolling in its box) instead of breaking a name letter by letter.
      const rows = await page.locator('header nav a').evaluateAll((links) => new Set(links.map((a) => Math.round(a.getBoundingClientRect().top))).size)
      expect(rows).toBeLessThanOrEqual(2)
      await page.goto(`${http.origin}/#/dbs`)
      expect(await page.locator('[data-testid=dbs] a[data-db=library]').evaluate((a) => a.getClientRects().length)).toBe(1)
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
        ['#/prompts', (p) => p.getByTestId('prompts').waitFor()],
        ['#/dbs', (p) => p.locator('[data-testid=dbs] a[data-db=library]').waitFor()],
        ['#/dbs/library', (p) => expect.poll(() => rowCount(p)).toBeGreaterThan(0)],
        ['#/dbs/library?filter[author]=ada*&sort=-pages', (p) => expect.poll(() => rowCount(p)).toBeGreaterThan(0)],
        ['#/dbs/library/new', (p) => p.getByTestId('record-form').waitFor()],
        ['#/dbs/library/records/3', (p) => p.getByLabel('Automatic fields').waitFor()],
        ['#/dbs/library/schema', (p) => p.getByTestId('schema-form').waitFor()],
        ['#/new/db', (p) => p.getByTestId('schema-form').waitFor()],
        ['#/dbs/library/public', (p) => p.getByTestId('public-summary').waitFor()],
        ['#/account', (p) => p.getByTestId('users').waitFor()],
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
          found.push(...await axeScan(page, `${scheme} ${hash}`))
        }
        // The grid with its completion list open and with the delete confirmation open.
        await page.goto(`${http.origin}/#/dbs/library`)
        await expect.poll(() => rowCount(page)).toBeGreaterThan(0)
        await page.getByRole('combobox', {name: 'Search'}).pressSequentially('a')
        await page.getByRole('option').first().waitFor()
        found.push(...await axeScan(page, `${scheme} completion`))
        await page.getByText('Columns', {exact: true}).click()
        found.push(...await axeScan(page, `${scheme} columns panel`))
        await page.getByText('Columns', {exact: true}).click()
        await page.getByTestId('edit-cells').click()
        await page.locator('td.edit input').first().fill('x')
        await page.locator('td.edit input').first().press('Tab')
        await page.getByRole('region', {name: 'Pending changes'}).getByRole('button', {name: 'Review'}).click()
        found.push(...await axeScan(page, `${scheme} inline editing with the queue`))
        await page.getByTestId('discard-changes').click()
        await page.getByRole('checkbox', {name: 'Select all records on this page'}).check()
        await page.click('[data-testid=bulk-delete]')
        await page.getByRole('dialog').waitFor()
        found.push(...await axeScan(page, `${scheme} confirm dialog`))
        await page.keyboard.press('Escape')
        await page.keyboard.press('Control+k')
        await page.getByRole('dialog', {name: 'Jump to'}).getByRole('option').first().waitFor()
        found.push(...await axeScan(page, `${scheme} command palette`))
        await page.keyboard.press('Escape')
        // The editor showing the API's field errors.
        await page.goto(`${http.origin}/#/dbs/library/new`)
        await page.getByTestId('save').click()
        await page.locator('[data-field-error=title]').waitFor()
        found.push(...await axeScan(page, `${scheme} editor with errors`))
        // The editor's 412 view: someone else's version beside mine.
        await page.goto(`${http.origin}/#/dbs/library/records/3`)
        await page.getByRole('textbox', {name: /^title/}).fill(`Mine ${scheme}`)
        await api('PATCH', `/svc/dbs/${dbId}/records/3.json`, {record: {data: {title: `Theirs ${scheme}`}}})
        await page.getByTestId('save').click()
        await page.getByTestId('stale').waitFor()
        found.push(...await axeScan(page, `${scheme} editor 412 view`))
        // The schema editor with its review (diff, data loss) open.
        await page.goto(`${http.origin}/#/dbs/library/schema`)
        await page.getByRole('button', {name: 'Remove note'}).click()
        await page.getByRole('button', {name: 'Review the changes'}).click()
        await page.getByTestId('schema-diff').waitFor()
        found.push(...await axeScan(page, `${scheme} schema review`))
        // Account admin with a new user's token shown.
        await page.goto(`${http.origin}/#/account`)
        await page.getByRole('textbox', {name: 'Login'}).fill(`axe-${scheme}`)
        await page.getByRole('button', {name: 'Create user'}).click()
        await page.getByTestId('new-token').waitFor()
        found.push(...await axeScan(page, `${scheme} account with a new token`))
        // The grid with an import's per-line errors.
        await page.goto(`${http.origin}/#/dbs/library`)
        await expect.poll(() => rowCount(page)).toBeGreaterThan(0)
        await page.getByLabel('Import NDJSON').setInputFiles({name: 'bad.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from('{"pages": "x"}\n')})
        await page.getByTestId('import-errors').waitFor()
        found.push(...await axeScan(page, `${scheme} import errors`))
      }
      expect(found).toEqual([])
    } finally {
      await browser.close()
    }
  }, 300_000)
})

