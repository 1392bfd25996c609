// Record search and filters on either store, on a dataset built once and reused:
//   node bench/dbs-search.mjs <checkout> sqlite <data-dir> [SIZE=1000000] [QUERIES=100]
//   node bench/dbs-search.mjs <checkout> pg <database-url> <data-dir> [SIZE=1000000] [QUERIES=100]
// <checkout> is a built svc checkout (its dist/ is loaded: two builds can be measured on one dataset).
// The first run imports SIZE records of bench/lib.js's people through the store (ids in
// <data-dir>/bench-search.json); later runs reuse them. Every figure goes through the app in
// process (routing, validation, SQL, JSON), as bench/dbs.js measures, with the machine's 1-minute
// load average before and after it. `answers` is a digest of every response (ids and data, not the
// timestamps): the same digest on two stores or two builds means the same answers.
import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {loadavg} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import {machine, PEOPLE_SCHEMA as schema, percentile, SYL, syntheticPeople} from './lib.js'

const [checkout, driver, ...rest] = process.argv.slice(2)
if (!checkout || (driver !== 'sqlite' && driver !== 'pg')) {
  console.error('usage: node bench/dbs-search.mjs <checkout> sqlite <data-dir> [SIZE] [QUERIES] | <checkout> pg <url> <data-dir> [SIZE] [QUERIES]')
  process.exit(2)
}
const url = driver === 'pg' ? rest.shift() : undefined
const dataDir = resolve(rest.shift())
const SIZE = Number(rest[0] ?? 1_000_000)
const QUERIES = Number(rest[1] ?? 100)
const load = (path) => import(pathToFileURL(join(resolve(checkout), 'dist', path)).href)
const [{indexValues, validateData}, {planSchema, tablePlan}, {createApp}, {openStoreAt}] =
  await Promise.all([load('core/dbs/records.js'), load('core/dbs/schema.js'), load('http/app.js'), load('store/index.js')])
const log = (line) => process.stderr.write(`dbs-search: ${line}\n`)

mkdirSync(dataDir, {recursive: true})
const store = await openStoreAt(url ? {dataDir, databaseUrl: url} : {dataDir})
const table = tablePlan(planSchema(schema), null)
const {person, pick} = syntheticPeople()
const idsFile = join(dataDir, 'bench-search.json')
const samples = []
const first = []
const every = Math.max(1, Math.floor(SIZE / QUERIES))
let ids
if (existsSync(idsFile)) {
  ids = JSON.parse(readFileSync(idsFile, 'utf8'))
  if (ids.size !== SIZE) throw new Error(`${dataDir} holds ${ids.size} records, not ${SIZE}`)
  for (let j = 0; j < SIZE; j++) {
    const data = person(j)
    if (j % every === 0) samples.push(data)
    if (j < 100) first.push(data)
  }
} else {
  const account = await store.accounts.createAccount('bench')
  const user = await store.accounts.addUser({accountId: account.id, login: 'admin', role: 'admin'})
  const db = await store.dbs.create(account.id, {name: 'People', code: 'people', app_id: null, schema, public_methods: {}, fields: {}})
  const t0 = performance.now()
  for (let i = 0; i < SIZE; i += 5000) {
    const writes = []
    for (let j = i; j < Math.min(SIZE, i + 5000); j++) {
      const data = validateData(table, person(j))
      if (j % every === 0) samples.push(data)
      if (j < 100) first.push(data)
      writes.push({tableName: null, data, index: indexValues(table, data)})
    }
    await store.dbs.createRecords(account.id, db.id, writes)
    if ((i / 5000) % 20 === 0) log(`imported ${i + writes.length}`)
  }
  ids = {size: SIZE, accountId: account.id, userId: user.id, dbId: db.id, import_ms: Math.round(performance.now() - t0)}
  if (url) {
    const pg = (await import(pathToFileURL(join(resolve(checkout), 'node_modules', 'pg', 'lib', 'index.js')).href)).default
    const admin = new pg.Client({connectionString: url})
    await admin.connect()
    await admin.query('VACUUM ANALYZE db_records') // the statistics and visibility map autovacuum gives a while after a bulk import
    await admin.end()
  }
  writeFileSync(idsFile, JSON.stringify(ids))
}

const app = createApp({store, systemPromptsDirs: []})
const get = async (qs) => {
  const res = await app.request(`http://localhost/svc/dbs/people/search.json?${qs}`, {}, {svcEmbeddedUserId: ids.userId})
  if (res.status !== 200) throw new Error(`${qs}: ${res.status} ${await res.text()}`)
  return res.json()
}
const figures = {}
// SVC_BENCH_ONLY=<regex>: only the figures whose name matches (to alternate two builds quickly).
const only = process.env.SVC_BENCH_ONLY ? new RegExp(process.env.SVC_BENCH_ONLY) : undefined
async function measure(name, query, n = QUERIES) {
  if (only && !only.test(name)) return
  for (let i = 0; i < Math.min(10, n); i++) await get(query(i + 1))
  const digest = createHash('sha256')
  const times = []
  const loadBefore = loadavg()[0]
  let hits = 0
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    const rows = await get(query(i))
    times.push(performance.now() - t0)
    hits += rows.length
    digest.update(JSON.stringify(rows.map(({created_at, updated_at, ...rest}) => rest)))
  }
  figures[name] = {
    p50_ms: +percentile(times, 50).toFixed(2), p99_ms: +percentile(times, 99).toFixed(2), runs: n, mean_hits: +(hits / n).toFixed(1),
    load_avg: [+loadBefore.toFixed(2), +loadavg()[0].toFixed(2)], answers: digest.digest('hex').slice(0, 16),
  }
  log(`${name}: ${JSON.stringify(figures[name])}`)
}

const s = (i) => samples[i % samples.length]
const enc = encodeURIComponent
await measure('filter_indexed_unique_email', (i) => `filter[email]=${enc(s(i).email)}`)
await measure('filter_indexed_city_newest_20', (i) => `filter[city]=${enc(s(i).city)}`)
await measure('filter_indexed_age_newest_20', (i) => `filter[age]=${s(i).age}&sort=-id`)
// A prefix wildcard on an index column, as the issue's `filter[email]=user66666.*`: the local part up to the number.
await measure('filter_prefix_wildcard_email', (i) => `filter[email]=${enc(s(i).email.replace(/\.\d+@.*$/, '.'))}*`)
// The same, written in capitals: the match is case-insensitive.
await measure('filter_prefix_wildcard_email_capitals', (i) => `filter[email]=${enc(s(i).email.replace(/\.\d+@.*$/, '.').toUpperCase())}*`)
await measure('q_fragment_common', (i) => `q=${enc(s(i).name.slice(2, 7))}&search_in=name`)
await measure('q_rare_name_no_early_hits', (i) => `q=${enc(first[i % first.length].name)}&search_in=name`)
await measure('q_rare_email_no_early_hits', (i) => `q=${enc(first[i % 10].email)}&search_in=email`)
await measure('q_3_chars', () => `q=${enc(pick(SYL) + pick(SYL)[0])}&search_in=name`)
await measure('q_absent', (i) => `q=${enc(`zzq${i}x`)}&search_in=name`)
await store.close()
console.log(JSON.stringify({machine: machine(), driver, checkout: resolve(checkout), size: SIZE, import_ms: ids.import_ms, figures}, null, 2))
