// `npm run screenshots`: a PNG of every console screen, light and dark, desktop (1280×800) and
// phone (360×740), into docs/console/ (docs/console.md shows them). Runs the built CLI: a fresh
// data dir, `svc admin user add`, `svc serve --port 0`, a little data made through the API, then
// Debian's Chromium (CHROMIUM_PATH overrides /usr/bin/chromium) through playwright-core.
import {spawn, spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = join(root, 'bin', 'run.js')
const out = join(root, 'docs', 'console')
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium'

/** name, hash, what shows it is ready (a CSS selector), and an optional step before the shot. */
const SCREENS = [
  ['dashboards', '#/dashboards', '[data-testid=dashboard-name]'],
  ['prompts', '#/prompts?code=greeting', '[data-testid=playground]'],
  ['databases', '#/dbs', '[data-testid=dbs] a[data-db=library]'],
  ['records-grid', '#/dbs/library?sort=-pages', '[data-testid=records] tbody tr[data-id]'],
  ['records-queue', '#/dbs/library?sort=-pages', '[data-testid=records] tbody tr[data-id]', async (page) => {
    await page.click('[data-testid=edit-cells]')
    const cell = page.locator('td.edit input').first()
    await cell.fill('Revised')
    await cell.press('Tab')
    await page.getByRole('region', {name: 'Pending changes'}).getByRole('button', {name: 'Review'}).click()
  }],
  ['record-editor', '#/dbs/library/records/1', '[data-testid=record-form]'],
  ['schema-editor', '#/dbs/library/schema', '[data-testid=schema-form]', async (page) => {
    await page.getByRole('button', {name: 'Remove note'}).click()
    await page.getByRole('button', {name: 'Review the changes'}).click()
    await page.getByTestId('schema-diff').waitFor()
  }],
  ['new-database', '#/new/db', '[data-testid=schema-form]'],
  ['public-methods', '#/dbs/library/public', '[data-testid=public-summary]'],
  ['account', '#/account', '[data-testid=users]'],
  ['apps', '#/apps', '[data-testid=apps]'],
  ['flow-runs', '#/runs', '[data-testid=runs]'],
  ['command-palette', '#/dbs', '[data-testid=dbs]', async (page) => {
    await page.keyboard.press('Control+k')
    await page.getByRole('dialog', {name: 'Jump to'}).getByRole('option').first().waitFor()
  }],
]
const SIZES = [['desktop', {width: 1280, height: 800}], ['phone', {width: 360, height: 740}]]

function serve(dataDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data', dataDir], {env: {...process.env, SVC_NO_UPDATE_NOTIFIER: '1'}})
    let log = ''
    child.stdout.on('data', (d) => {
      log += d
      const m = /Listening on (http:\/\/\S+)/.exec(log)
      if (m) resolve({url: m[1], stop: () => child.kill('SIGTERM')})
    })
    child.stderr.on('data', (d) => (log += d))
    child.on('exit', (code) => reject(new Error(`svc serve exited ${code}: ${log}`)))
  })
}

const dataDir = mkdtempSync(join(tmpdir(), 'svc-screenshots-'))
const added = spawnSync(process.execPath, [bin, 'admin', 'user', 'add', 'ada', '--role', 'admin', '--name', 'Ada Lovelace', '--data', dataDir, '--json'], {encoding: 'utf8'})
if (added.status !== 0) throw new Error(`svc admin user add failed: ${added.stderr}`)
const token = JSON.parse(added.stdout).token
const server = await serve(dataDir)
const api = async (method, path, body) => {
  const res = await fetch(server.url + path, {method, headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'}, body: body && JSON.stringify(body)})
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res.status === 204 ? undefined : res.json()
}

let browser
try {
  const db = await api('POST', '/svc/dbs.json', {db: {name: 'Library', code: 'library', schema: {
    fields: {title: {type: 'string', required: true}, author: 'string', pages: 'integer', note: 'text'}, indexed_fields: ['title', 'author', 'pages'],
  }, public_methods: {list: {scope_by: 'visitor'}, create: {auto_fields: {visitor: '{cookie_key}'}}}}})
  const authors = ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Edsger Dijkstra']
  await api('POST', `/svc/dbs/${db.id}/import.json`, {records: Array.from({length: 60}, (_, i) => ({data: {
    title: `Book ${String(i + 1).padStart(2, '0')}`, author: authors[i % authors.length], pages: 80 + ((i * 37) % 400), note: i % 5 ? null : 'first edition',
  }}))})
  await api('POST', '/svc/dbs.json', {db: {name: 'Shop', code: 'shop', schema: {tables: {orders: {fields: {total: 'number'}}, customers: {fields: {email: 'string'}}}}}})
  await api('POST', '/svc/prompts.json', {prompt: {name: 'Greeting', code: 'greeting', content: 'Hello {{ who }}, welcome to the library.'}})
  await api('POST', '/svc/users.json', {user: {login: 'grace', role: 'manager', teams: ['catalogue'], department: 'north'}})

  const {chromium} = await import('playwright-core')
  const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'))
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  })
  const page = await browser.newPage()
  page.setDefaultTimeout(60_000)
  await page.goto(`${server.url}/`)
  await page.fill('#token', token)
  await page.click('button[type=submit]')
  await page.waitForSelector('[data-testid=who]', {state: 'attached'})
  mkdirSync(out, {recursive: true})
  let n = 0
  for (const [size, viewport] of SIZES) {
    await page.setViewportSize(viewport)
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({colorScheme: scheme})
      for (const [name, hash, ready, step] of SCREENS) {
        await page.goto(`${server.url}/${hash}`)
        await page.reload()
        await page.locator(ready).first().waitFor()
        if (step) await step(page)
        await page.screenshot({path: join(out, `${name}-${scheme}-${size}.png`)})
        n++
      }
    }
  }
  console.log(`Wrote ${n} screenshots to docs/console/`)
} finally {
  await browser?.close()
  server.stop()
  rmSync(dataDir, {recursive: true, force: true})
}
