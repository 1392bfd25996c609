// `npm run screenshots`: a PNG of every console screen, light and dark, desktop (1280×800) and
// phone (360×740), into docs/console/ (docs/console.md shows them). Runs the built CLI: a fresh
// data dir, `svc admin user add`, `svc serve --port 0`, a little data made through the API, then
// Debian's Chromium (CHROMIUM_PATH overrides /usr/bin/chromium) through playwright-core.
import {spawn, spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = join(root, 'bin', 'run.js')
const out = join(root, 'docs', 'console')
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium'

/** The ids the setup below makes through the API (a screen's hash may need one). */
const made = {}
/** The variable input of the prompt editor drives its live preview. */
async function previewFor(page, who) {
  await page.getByRole('textbox', {name: 'who', exact: true}).fill(who)
  await page.getByTestId('preview').filter({hasText: who}).waitFor()
  await page.getByTestId('preview').scrollIntoViewIfNeeded()
}

/** name, hash, what shows it is ready (a CSS selector), and an optional step before the shot. */
const SCREENS = [
  ['overview', '#/', '[data-testid=overview-apps] a[data-app-page]'],
  ['dashboards', '#/dashboards', '[data-testid=grid] [data-key=kpi]', async (page) => {
    await page.frameLocator('[data-testid=grid] iframe').getByText('books to read').waitFor()
  }],
  ['dashboard-layout', '#/dashboards/edit', '[data-testid=layout-editor] [data-key=kpi]', async (page) => {
    await page.getByTestId('add-tile').locator('option', {hasText: 'Tasks'}).waitFor({state: 'attached'})
    await page.getByRole('button', {name: 'Move Activity earlier'}).click()
    await page.getByTestId('not-offered').locator('summary').click()
    await page.evaluate(() => window.scrollTo(0, 0))
  }],
  ['prompts', '#/prompts', '[data-testid=prompts] tr[data-id]'],
  ['prompts-system', '#/prompts?scope=system', '[data-testid=system-prompts] a'],
  ['prompt-cascade', '#/prompts/crm_dashboard', '[data-testid=cascade-render]'],
  ['prompt-editor', () => `#/prompts/greeting/${made.greeting}`, '[data-testid=content] .cm-line', (page) => previewFor(page, 'Grace')],
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
  ['apps', '#/apps', '[data-testid=apps] [data-app-edit]'],
  ['app-editor', () => `#/apps/${made.app}`, '[data-testid=source] .cm-line', async (page) => {
    await page.getByTestId('preview').scrollIntoViewIfNeeded()
    await page.frameLocator('[data-testid=preview]').getByText('books to read').waitFor()
  }],
  ['flow-runs', '#/flows', '[data-testid=runs] tr[data-run]'],
  ['flow-run', () => `#/flows/runs/${made.run}`, '[data-testid=run-status]:text("finished")'],
  ['flows', '#/flows/list', '[data-testid=flows] a'],
  ['flow', () => `#/flows/${made.flow}`, '[data-testid=run-form]', async (page) => {
    await page.getByLabel('Input (a JSON object)').fill('{"name": "Grace"}')
    await page.getByTestId('flow-runs').locator('a').first().waitFor()
  }],
  ['connectors', '#/flows/connectors', '[data-connector=weather]'],
  ['crons', '#/flows/crons', '[data-testid=crons] tbody tr'],
  ['account', '#/account', '[data-testid=users]'],
  ['activity', () => `#/history?door=mcp&since=${encodeURIComponent(made.since)}`, '[data-testid=activity] tbody tr', async (page) => {
    await page.getByTestId('undo-preview').click()
    await page.getByTestId('undo-dry-run').waitFor()
  }],
  ['history', () => `#/history/prompt/${made.tone}?v=${made.toneFirst}`, '[data-testid=diff] [data-line=add]'],
  ['trash', '#/history/trash', '[data-testid=trash] tbody tr'],
  ['command-palette', '#/dbs', '[data-testid=dbs]', async (page) => {
    await page.keyboard.press('Control+k')
    await page.getByRole('dialog', {name: 'Jump to'}).getByRole('option').first().waitFor()
  }],
]
/** `npm run screenshots -- prompt-editor apps` shoots only those screens. */
const wanted = process.argv.slice(2)
const unknown = wanted.filter((name) => !SCREENS.some(([n]) => n === name))
if (unknown.length) throw new Error(`No screen named ${unknown.join(', ')}; screens: ${SCREENS.map(([n]) => n).join(', ')}`)
/** The small Svelte app of the app editor and of a dashboard tile. */
const READING_LIST = `<script>
  let books = $state(['Dune', 'Emma', 'Middlemarch'])
  let title = $state('')
  function add(event) {
    event.preventDefault()
    if (title.trim()) books = [...books, title.trim()]
    title = ''
  }
</script>

<h1>Reading list</h1>
<form onsubmit={add}>
  <label>Book <input bind:value={title}></label>
  <button>Add</button>
</form>
<ol>
  {#each books as book}<li>{book}</li>{/each}
</ol>
<p>{books.length} books to read.</p>
`
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
const added = spawnSync(process.execPath, [bin, 'admin', 'user', 'add', 'ada', '--role', 'admin', '--name', 'Ada Lovelace', '--team', 'catalogue', '--department', 'north', '--data', dataDir, '--json'], {encoding: 'utf8'})
if (added.status !== 0) throw new Error(`svc admin user add failed: ${added.stderr}`)
const token = JSON.parse(added.stdout).token
const server = await serve(dataDir)
const api = async (method, path, body, headers = {}) => {
  const res = await fetch(server.url + path, {method, headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers}, body: body && JSON.stringify(body)})
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res.status === 204 ? undefined : res.json()
}

let browser
const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'))
try {
  const db = await api('POST', '/svc/dbs.json', {db: {name: 'Library', code: 'library', schema: {
    fields: {title: {type: 'string', required: true}, author: 'string', pages: 'integer', note: 'text'}, indexed_fields: ['title', 'author', 'pages'],
  }, public_methods: {list: {scope_by: 'visitor'}, create: {auto_fields: {visitor: '{cookie_key}'}}}}})
  const authors = ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Edsger Dijkstra']
  await api('POST', `/svc/dbs/${db.id}/import.json`, {records: Array.from({length: 60}, (_, i) => ({data: {
    title: `Book ${String(i + 1).padStart(2, '0')}`, author: authors[i % authors.length], pages: 80 + ((i * 37) % 400), note: i % 5 ? null : 'first edition',
  }}))})
  await api('POST', '/svc/dbs.json', {db: {name: 'Shop', code: 'shop', schema: {tables: {orders: {fields: {total: 'number'}}, customers: {fields: {email: 'string'}}}}}})
  made.greeting = (await api('POST', '/svc/prompts.json', {prompt: {name: 'Greeting', code: 'greeting', content: 'Hello {{ who }}, welcome to the library.\nToday is {{ date }}.'}})).id
  // A code in four layers: the user's wins over the team's and the account's, the system file underneath; an _extra appended.
  const me = await api('GET', '/svc/me.json')
  for (const prompt of [
    {name: 'CRM assistant (account)', code: 'crm_dashboard', content: 'You help the sales team of the library with its CRM dashboard.'},
    {name: 'CRM assistant (catalogue)', code: 'crm_dashboard', scope: 'team', scope_id: me.team_ids[0], content: 'You help the catalogue team keep its CRM tiles tidy.'},
    {name: 'My CRM assistant', code: 'crm_dashboard', scope: 'user', content: 'You help Ada with the CRM dashboard of {{ account_url }}. Answer in short sentences; today is {{ date }}.'},
    {name: 'CRM house rules', code: 'crm_dashboard_extra', content: 'Never delete a tile without asking first.'},
  ]) await api('POST', '/svc/prompts.json', {prompt})
  made.app = (await api('POST', '/svc/apps.json', {app: {name: 'Reading list', url_code: 'reading-list', app_engine: 'svelte', css_engine: 'none', public: true, dashboard_widget: true,
    source_code: READING_LIST, actions: [{action: 'greet', flow_code: 'greeter', description: 'Greet a reader'}]}})).id
  made.flow = (await api('POST', '/svc/resources.json', {resource: {kind: 'svc/custom_flow', code: 'greeter', name: 'Greeter',
    fields: {program: [{type: 'mutation', set: {greeting: 'Hello {name}'}}, {type: 'if', condition: '{name} == "Ada"', then: [{type: 'mutation', set: {vip: true}}]}]}}})).id
  await api('POST', '/svc/resources.json', {resource: {kind: 'svc/custom_connector', code: 'weather', name: 'Weather', url: 'http://127.0.0.1:9', secret_token: 'a-long-secret-never-shown',
    fields: {methods: [{name: 'current', http_method: 'GET', path: '/current'}]}}})
  const forecast = await api('POST', '/svc/resources.json', {resource: {kind: 'svc/custom_flow', code: 'forecast', name: 'Forecast',
    fields: {program: [{type: 'mutation', set: {city: 'Cairo'}}, {type: 'connector', connector: 'weather', method: 'current', params: {city: '{city}'}, into: 'weather'}]}}})
  for (const name of ['Ada', 'Alan', 'Grace']) made.run = (await api('POST', `/svc/resources/${made.flow}/run.json`, {input: {name}})).id
  await api('POST', `/svc/resources/${forecast.id}/run.json`, {input: {}})
  const cron = await api('POST', '/account/crons.json', {cron: {kind: 'flow', target_code: 'greeter', schedule: '0 7 * * 1-5', active: true}})
  await api('POST', `/account/crons/${cron.id}/run.json`)
  await api('POST', '/account/crons.json', {cron: {kind: 'flow', target_code: 'forecast', schedule: '*/30 * * * *', active: false}})
  const board = await api('POST', '/toolkit/dashboards.json', {dashboard: {name: 'Library desk', context: 'main', layout: [
    {key: 'kpi', size: 'full'}, {key: 'activity', size: 'half'}, {key: `svc_app:${made.app}`, size: 'half'}, {key: 'tasks', size: 'half'}, {key: 'ai_request', size: 'quarter'}, {key: 'todo', size: 'quarter'},
  ]}})
  await api('PATCH', '/toolkit/dashboards/select.json', {context: 'main', dashboard_id: board.id})
  await api('POST', '/svc/users.json', {user: {login: 'grace', role: 'manager', teams: ['catalogue'], department: 'north'}})
  // The history screens: an agent (MCP door) rewrites a prompt twice and deletes another.
  made.tone = (await api('POST', '/svc/prompts.json', {prompt: {name: 'Tone of voice', code: 'tone', content: 'Write plainly.\nShort sentences.\nNo jargon.'}})).id
  const farewell = await api('POST', '/svc/prompts.json', {prompt: {name: 'Farewell', code: 'farewell', content: 'Goodbye {{ who }}.'}})
  await new Promise((r) => setTimeout(r, 20))
  made.since = new Date().toISOString()
  await new Promise((r) => setTimeout(r, 20))
  const agent = {'x-svc-door': 'mcp', 'x-svc-client': 'claude-code'}
  await api('PATCH', `/svc/prompts/${made.tone}.json`, {prompt: {content: 'Write plainly.\nShort sentences, active voice.\nNo jargon.'}}, agent)
  await api('PATCH', `/svc/prompts/${made.tone}.json`, {prompt: {content: 'Write like a pirate.\nShort sentences, active voice.'}}, agent)
  await api('DELETE', `/svc/prompts/${farewell.id}.json`, undefined, agent)
  made.toneFirst = (await api('GET', `/svc/history.json?kind=prompt&id=${made.tone}`)).at(-1).bookmark

  const {chromium} = await import('playwright-core')
  // Headless Chromium refuses third-party cookies; desktop Chrome's default keeps them, and an app
  // tile (a frame of the app's own origin) needs its sign-in cookie there to show the app.
  mkdirSync(join(profile, 'Default'))
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({profile: {cookie_controls_mode: 0, block_third_party_cookies: false}}))
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
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
        if (wanted.length && !wanted.includes(name)) continue
        await page.goto(`${server.url}/${typeof hash === 'function' ? hash() : hash}`)
        await page.reload()
        const file = `${name}-${scheme}-${size}.png`
        try {
          await page.locator(ready).first().waitFor()
          if (step) await step(page)
        } catch (error) {
          const seen = join(tmpdir(), file)
          await page.screenshot({path: seen})
          throw new Error(`Screen ${name} (${scheme}, ${size}) never got ready; what it showed: ${seen}`, {cause: error})
        }
        await page.screenshot({path: join(out, file)})
        n++
      }
    }
  }
  console.log(`Wrote ${n} screenshots to docs/console/`)
} finally {
  await browser?.close()
  server.stop()
  rmSync(dataDir, {recursive: true, force: true})
  rmSync(profile, {recursive: true, force: true})
}
