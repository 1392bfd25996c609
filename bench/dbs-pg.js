// JSON databases at scale on PostgreSQL: `node bench/dbs-pg.js [SIZE=100000] [SECONDS=10] [ROUNDS=3]`
// (build first: npm run build). The same measures as bench/dbs.js (import through the store,
// indexed filter and `q` p50/p99 through the app, create throughput over HTTP with 32 connections),
// plus create throughput with 1 vs 3 `svc serve --database-url` instances over the same database
// (3 autocannons at once, 32 connections split 11/11/10: no balancer process competing for the
// cores), and a rare `q` fragment with no early hits (a whole name of one of the first records, newest first)
// through the pg_trgm candidate filter against a LIKE scan of every record.
//
// SVC_BENCH_SKIP_CREATE=1 measures import and queries only.
// PostgreSQL: $SVC_BENCH_DATABASE_URL (an empty database), else a throwaway cluster started by
// scripts/pg-test-cluster.sh with PostgreSQL's durable defaults (SVC_PG_TEST_SAFE=1: fsync and
// synchronous_commit on), removed at the end.
import {execFileSync, spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {cpus, tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import autocannon from 'autocannon'
import pg from 'pg'
import {buildQuery, searchTable} from '../dist/core/dbs/query.js'
import {indexValues, validateData} from '../dist/core/dbs/records.js'
import {planSchema, tablePlan} from '../dist/core/dbs/schema.js'
import {createApp} from '../dist/http/app.js'
import {createServices} from '../dist/services/index.js'
import {openStoreAt} from '../dist/store/index.js'
import {machine, PEOPLE_SCHEMA as schema, percentile, SYL, syntheticPeople} from './lib.js'

const SIZE = Number(process.argv[2] ?? 100_000)
const SECONDS = Number(process.argv[3] ?? 10)
const ROUNDS = Number(process.argv[4] ?? 3)
const QUERIES = 200
const root = fileURLToPath(new URL('..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-pg-'))
// Right under the temp folder: the cluster's owner (postgres) cannot enter mkdtemp's private folders.
const clusterEnv = {...process.env, SVC_PG_TEST_DIR: `${dir}-cluster`, SVC_PG_TEST_SAFE: process.env.SVC_PG_TEST_SAFE ?? '1'}
const cluster = (command) => execFileSync(join(root, 'scripts', 'pg-test-cluster.sh'), [command], {env: clusterEnv, encoding: 'utf8'}).trim()
const url = process.env.SVC_BENCH_DATABASE_URL || cluster('start')
const log = (line) => process.stderr.write(`dbs-pg: ${line}\n`)

// The same deterministic data as bench/dbs.js (bench/lib.js).
const {person, pick} = syntheticPeople()

const children = []
try {
  const store = await openStoreAt({dataDir: dir, databaseUrl: url})
  const account = await store.accounts.createAccount('bench')
  const user = await store.accounts.addUser({accountId: account.id, login: 'admin', role: 'admin'})
  const token = await store.accounts.createToken(user.id)
  const db = await store.dbs.create(account.id, {name: 'People', code: 'people', app_id: null, schema, public_methods: {}, fields: {}})
  const plan = planSchema(schema)
  const table = tablePlan(plan, null)

  // 1. Import through the store, batches of 5000.
  const samples = []
  const first = []
  let t0 = performance.now()
  const BATCH = 5000
  for (let i = 0; i < SIZE; i += BATCH) {
    const writes = []
    for (let j = i; j < Math.min(SIZE, i + BATCH); j++) {
      const data = validateData(table, person(j))
      if (j % Math.max(1, Math.floor(SIZE / QUERIES)) === 0) samples.push(data)
      if (j < QUERIES) first.push(data)
      writes.push({tableName: null, data, index: indexValues(table, data)})
    }
    await store.dbs.createRecords(account.id, db.id, writes)
    if ((i / BATCH) % 20 === 0) log(`imported ${i + writes.length}`)
  }
  const importMs = performance.now() - t0
  // Fresh statistics, as autovacuum's analyze would give a while after a bulk import.
  const admin = new pg.Client({connectionString: url})
  await admin.connect()
  await admin.query('ANALYZE')
  const dbBytes = Number((await admin.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n)

  // 2. Queries through the app in-process, and through the store for q with and without the trigram filter.
  const app = createApp({store, services: createServices(store), systemPromptsDirs: []})
  const get = async (qs) => {
    const res = await app.request(`http://localhost/svc/dbs/people/search.json?${qs}`, {}, {svcEmbeddedUserId: user.id})
    if (res.status !== 200) throw new Error(`${qs}: ${res.status} ${await res.text()}`)
    return res.json()
  }
  const timed = async (n, fn) => {
    const out = []
    for (let i = 0; i < n; i++) {
      const s = performance.now()
      await fn(i)
      out.push(performance.now() - s)
    }
    return out
  }
  const stats = (xs) => ({p50_ms: +percentile(xs, 50).toFixed(2), p99_ms: +percentile(xs, 99).toFixed(2)})
  await timed(20, (i) => get(`filter[email]=${encodeURIComponent(samples[i % samples.length].email)}`))
  const filterEmail = await timed(QUERIES, (i) => get(`filter[email]=${encodeURIComponent(samples[i % samples.length].email)}`))
  const filterCity = await timed(QUERIES, (i) => get(`filter[city]=${encodeURIComponent(samples[i % samples.length].city)}`))
  const filterAge = await timed(QUERIES, (i) => get(`filter[age]=${samples[i % samples.length].age}&sort=-id`))
  const frag = (i) => samples[i % samples.length].name.slice(2, 7)
  // Rare, no early hits: the whole name of one of the first records (names are all but unique; newest-first order reaches them last).
  const rareFrag = (i) => first[i % first.length].name
  const qHttp = await timed(QUERIES, (i) => get(`q=${encodeURIComponent(frag(i))}&search_in=name`))
  const {tableName} = searchTable(plan, undefined)
  const spec = (q, useFts) => ({...buildQuery({q, search_in: 'name'}, table, true), tableName, useTextIndex: useFts})
  const qTrgm = await timed(QUERIES, (i) => store.dbs.query(account.id, db.id, spec(frag(i), true)))
  const scanRuns = SIZE >= 500_000 ? 10 : 30
  const qScan = await timed(scanRuns, (i) => store.dbs.query(account.id, db.id, spec(frag(i), false)))
  const qRareHttp = await timed(QUERIES, (i) => get(`q=${encodeURIComponent(rareFrag(i))}&search_in=name`))
  const qRareScan = await timed(scanRuns, (i) => store.dbs.query(account.id, db.id, spec(rareFrag(i), false)))
  const qCommon = await timed(QUERIES, (i) => get(`q=${encodeURIComponent(pick(SYL) + pick(SYL)[0])}&search_in=name`))
  const rareHits = (await get(`q=${encodeURIComponent(rareFrag(0))}&search_in=name`)).length
  // The names above are built from 20 two-letter syllables, so every trigram of them is common (the
  // rarest trigram of a whole name is in ~2-3 % of the records): the index must intersect long lists.
  // A fragment as people search rare text has a rare trigram; here, the whole email of one of the
  // first ten records (pg_trgm splits words at punctuation: its number `.N@` is a word of that record alone).
  const rareEmail = (i) => first[i % 10].email
  const qRareEmailHttp = await timed(QUERIES, (i) => get(`q=${encodeURIComponent(rareEmail(i))}&search_in=email`))
  const rareEmailHits = (await get(`q=${encodeURIComponent(rareEmail(0))}&search_in=email`)).length
  await store.close()
  log('queries done')

  const create = process.env.SVC_BENCH_SKIP_CREATE === '1' ? undefined : await createThroughput(token, url)
  await admin.end()

  console.log(JSON.stringify({
    machine: machine(), size: SIZE, postgres: process.env.SVC_BENCH_DATABASE_URL ? 'given server' : 'throwaway cluster, durable defaults',
    import: {ms: Math.round(importMs), records_per_s: Math.round(SIZE / (importMs / 1000)), database_mb: Math.round(dbBytes / 2 ** 20)},
    filter_indexed_unique_email: stats(filterEmail),
    filter_indexed_city_newest_20: stats(filterCity),
    filter_indexed_age_newest_20: stats(filterAge),
    q_fragment_http_trigram: stats(qHttp),
    q_fragment_store_trigram: stats(qTrgm),
    q_fragment_store_scan_no_trigram: {...stats(qScan), runs: scanRuns},
    q_rare_no_early_hits_http_trigram: {...stats(qRareHttp), hits_first_query: rareHits},
    q_rare_no_early_hits_store_like_scan: {...stats(qRareScan), runs: scanRuns},
    q_rare_email_no_early_hits_http_trigram: {...stats(qRareEmailHttp), hits_first_query: rareEmailHits},
    q_common_3_chars_http_trigram: stats(qCommon),
    create_http_32_connections: create,
    targets: {filter_p50_ms: 2, q_rare_p50_ms: 5, three_to_one: 2},
  }, null, 2))
} finally {
  for (const child of children) child.kill('SIGTERM')
  await new Promise((r) => setTimeout(r, 500))
  if (!process.env.SVC_BENCH_DATABASE_URL) cluster('stop')
  rmSync(dir, {recursive: true, force: true})
}

/** The machine's CPU time so far (/proc/stat, Linux): busy and total, in clock ticks over every core. */
function cpuTicks() {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/)
    const n = fields.map(Number)
    const total = n.reduce((a, b) => a + b, 0)
    return {busy: total - n[3] - n[4], total}
  } catch {
    return null
  }
}

/**
 * Runs `fn` and adds how busy the machine's cores were meanwhile (`cpu_busy_pct`, 100 = every core)
 * and the share of this process (the load generator): whether a figure is bounded by the machine.
 */
async function withCpu(fn) {
  const before = cpuTicks()
  const own = process.cpuUsage()
  const started = performance.now()
  const result = await fn()
  const after = cpuTicks()
  if (!before || !after) return result
  const used = process.cpuUsage(own)
  const ownMs = (used.user + used.system) / 1000
  const cores = cpus().length
  return {
    ...result,
    cpu_busy_pct: Math.round((100 * (after.busy - before.busy)) / (after.total - before.total)),
    load_generator_pct_of_machine: Math.round((100 * ownMs) / ((performance.now() - started) * cores)),
  }
}

/** Create throughput over HTTP: one instance with 32 connections, then three with 11/11/10 at once (rounds alternate, median). */
async function createThroughput(token, url) {
  const serve = (n) => new Promise((resolve, reject) => {
    const dataDir = join(dir, `instance-${n}`)
    const child = spawn(process.execPath, [join(root, 'bin', 'run.js'), 'serve', '--port', '0', '--data', dataDir, '--database-url', url, '--quiet'], {stdio: ['ignore', 'pipe', 'inherit']})
    children.push(child)
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      const m = /Listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve(m[1])
    })
    child.once('exit', (code) => reject(new Error(`svc serve exited ${code}`)))
  })
  const urls = await Promise.all([0, 1, 2].map(serve))
  let i = 0
  const cannon = (target, connections) => autocannon({
    url: `${target}/svc/dbs/people/records.json`, connections, duration: SECONDS, method: 'POST',
    requests: [{setupRequest: (req) => ({...req, headers: {'content-type': 'application/json', authorization: `Bearer ${token}`}, body: JSON.stringify({record: {data: person(SIZE + i++)}})})}],
  })
  const summarise = (results) => ({
    req_per_s: Math.round(results.reduce((n, r) => n + r.requests.average, 0)),
    p50_ms: Math.max(...results.map((r) => r.latency.p50)), p99_ms: Math.max(...results.map((r) => r.latency.p99)),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0), errors: results.reduce((n, r) => n + r.errors, 0),
  })
  const rounds = {one: [], three: []}
  for (let round = 0; round < ROUNDS; round++) {
    rounds.one.push(await withCpu(async () => summarise([await cannon(urls[0], 32)])))
    rounds.three.push(await withCpu(async () => summarise(await Promise.all([cannon(urls[0], 11), cannon(urls[1], 11), cannon(urls[2], 10)]))))
    log(`round ${round + 1}: ${rounds.one.at(-1).req_per_s} vs ${rounds.three.at(-1).req_per_s} req/s`)
  }
  const median = (runs) => ({...[...runs].sort((a, b) => a.req_per_s - b.req_per_s)[Math.floor(runs.length / 2)], rounds_req_per_s: runs.map((r) => r.req_per_s)})
  const [one, three] = [median(rounds.one), median(rounds.three)]
  return {
    rounds: ROUNDS, seconds_per_round: SECONDS,
    one_instance: one,
    three_instances: three,
    ratio_three_to_one: +(three.req_per_s / one.req_per_s).toFixed(2),
  }
}
