// The console's records grid on a big table (issue 27): `node bench/console-grid.mjs [SIZE=1000000] [sqlite|pg]`
// (build first: npm run build; needs /usr/bin/chromium). One db of SIZE people (bench/lib.js, five
// index columns) written through the store, then a real `svc serve` over it and Debian's Chromium:
// - first paint: a fresh navigation to #/dbs/people until the first row is in the DOM (ms since
//   the navigation started, performance.now() in the page), 7 times;
// - paging: Next (20 rows further, sorted by an index column) until the first row changes, 10 times;
// - sorting: a click on an index column's header (ascending, then descending) until the first row
//   changes, every index column.
// PostgreSQL: $SVC_BENCH_DATABASE_URL (an empty database), else a throwaway cluster
// (scripts/pg-test-cluster.sh, durable defaults). Prints one JSON line with the medians and maxima.
import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {indexValues, validateData} from '../dist/core/dbs/records.js'
import {planSchema, tablePlan} from '../dist/core/dbs/schema.js'
import {openStoreAt} from '../dist/store/index.js'
import {machine, median, PEOPLE_SCHEMA as schema, syntheticPeople} from './lib.js'

const SIZE = Number(process.argv[2] ?? 1_000_000)
const STORE = process.argv[3] ?? 'sqlite'
const root = fileURLToPath(new URL('..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-grid-'))
const clusterEnv = {...process.env, SVC_PG_TEST_DIR: `${dir}-cluster`, SVC_PG_TEST_SAFE: process.env.SVC_PG_TEST_SAFE ?? '1'}
const cluster = (command) => execFileSync(join(root, 'scripts', 'pg-test-cluster.sh'), [command], {env: clusterEnv, encoding: 'utf8'}).trim()
const url = STORE === 'pg' ? process.env.SVC_BENCH_DATABASE_URL || cluster('start') : undefined
const log = (line) => process.stderr.write(`console-grid: ${line}\n`)
const INDEXED = schema.indexed_fields

let server
let browser
try {
  // 1. The data, through the store (the path of svc db import), batches of 5000.
  const store = await openStoreAt({dataDir: dir, databaseUrl: url})
  const account = await store.accounts.createAccount('bench')
  const user = await store.accounts.addUser({accountId: account.id, login: 'admin', role: 'admin'})
  const token = await store.accounts.createToken(user.id)
  const db = await store.dbs.create(account.id, {name: 'People', code: 'people', app_id: null, schema, public_methods: {}, fields: {}})
  const table = tablePlan(planSchema(schema), null)
  const {person} = syntheticPeople()
  const t0 = performance.now()
  for (let i = 0; i < SIZE; i += 5000) {
    const writes = []
    for (let j = i; j < Math.min(SIZE, i + 5000); j++) {
      const data = validateData(table, person(j))
      writes.push({tableName: null, data, index: indexValues(table, data)})
    }
    await store.dbs.createRecords(account.id, db.id, writes)
    if (i % 200_000 === 0) log(`${i} records…`)
  }
  log(`${SIZE} records written in ${Math.round(performance.now() - t0)} ms`)
  await store.close()

  // 2. A real server over them.
  server = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'run.js'), 'serve', '--port', '0', '--data', dir, ...(url ? ['--database-url', url] : [])], {env: process.env})
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      const m = /Listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve({url: m[1], child})
    })
    child.stderr.on('data', (d) => (out += d))
    child.on('exit', (code) => reject(new Error(`svc serve exited ${code}: ${out}`)))
  })

  // 3. Chromium: sign in once, then measure in the page.
  const {chromium} = await import('playwright-core')
  const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'))
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  })
  // The moment the first row is in the DOM, and every change of the first row's id after it.
  await browser.addInitScript(() => {
    window.__rows = []
    new MutationObserver(() => {
      const id = document.querySelector('[data-testid=records] tbody tr[data-id]')?.getAttribute('data-id')
      if (id && window.__rows.at(-1)?.id !== id) window.__rows.push({id, at: performance.now()})
    }).observe(document, {subtree: true, childList: true})
  })
  const page = await browser.newPage()
  page.setDefaultTimeout(120_000)
  await page.goto(`${server.url}/`)
  await page.fill('#token', token)
  await page.click('button[type=submit]')
  await page.waitForSelector('[data-testid=who]', {state: 'attached'})

  const firstPaint = []
  for (let i = 0; i < 7; i++) {
    await page.goto(`${server.url}/#/dbs/people`)
    await page.reload()
    await page.waitForFunction(() => window.__rows.length > 0)
    firstPaint.push(await page.evaluate(() => window.__rows[0].at))
    await page.waitForFunction(() => /of \d/.test(document.querySelector('[data-testid=range]')?.textContent ?? ''))
  }
  /** Clicks `selector` and answers the ms until the first row's id changes. */
  const until = async (selector) => {
    const before = await page.evaluate(() => window.__rows.length)
    const start = await page.evaluate((s) => {
      const t = performance.now()
      document.querySelector(s).click()
      return t
    }, selector)
    await page.waitForFunction((n) => window.__rows.length > n, before)
    return (await page.evaluate(() => window.__rows.at(-1).at)) - start
  }
  const paging = []
  await page.goto(`${server.url}/#/dbs/people?sort=age`)
  await page.waitForFunction(() => window.__rows.length > 0)
  for (let i = 0; i < 10; i++) paging.push(await until('[data-testid=next]'))
  const sorting = []
  await page.goto(`${server.url}/#/dbs/people`)
  await page.waitForFunction(() => window.__rows.length > 0)
  for (const field of INDEXED) {
    sorting.push(await until(`[data-sort=${field}]`))
    sorting.push(await until(`[data-sort=${field}]`))
    await until(`[data-sort=${field}]`)
  }
  const round = (v) => Math.round(v)
  const result = {
    store: STORE, records: SIZE, machine: machine(),
    first_paint_ms: {median: round(median(firstPaint)), max: round(Math.max(...firstPaint))},
    next_page_ms: {median: round(median(paging)), max: round(Math.max(...paging))},
    sort_index_column_ms: {median: round(median(sorting)), max: round(Math.max(...sorting))},
  }
  console.log(JSON.stringify(result))
} finally {
  await browser?.close()
  server?.child.kill('SIGTERM')
  if (STORE === 'pg' && !process.env.SVC_BENCH_DATABASE_URL) spawnSync(join(root, 'scripts', 'pg-test-cluster.sh'), ['stop'], {env: clusterEnv})
  rmSync(dir, {recursive: true, force: true})
}
