// JSON databases at scale: `node bench/dbs.js [SIZE=100000] [SECONDS=10] [ROUNDS=3]` (build first: npm run build).
// One db with SIZE records and indexed fields; measures import time, indexed filter p50/p99,
// q fragment p50/p99 with and without the FTS5 trigram index, and create throughput over HTTP with
// 32 connections (autocannon) against a bare Hono + better-sqlite3 insert route in the same run
// (the servers take turns for ROUNDS rounds; the median round of each is reported).
import {spawn} from 'node:child_process'
import {closeSync, cpSync, fsyncSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import autocannon from 'autocannon'
import {buildQuery, searchTable} from '../dist/core/dbs/query.js'
import {indexValues, validateData} from '../dist/core/dbs/records.js'
import {planSchema, tablePlan} from '../dist/core/dbs/schema.js'
import {createApp} from '../dist/http/app.js'
import {createServices} from '../dist/services/index.js'
import {openStore} from '../dist/store/index.js'
import {machine, PEOPLE_SCHEMA as schema, percentile, SYL, syntheticPeople} from './lib.js'

const SIZE = Number(process.argv[2] ?? 100_000)
const SECONDS = Number(process.argv[3] ?? 10)
/** Create-throughput rounds per server, alternated (svc, bare, same storage, svc, ...): the median round counts. */
const ROUNDS = Number(process.argv[4] ?? 3)
const QUERIES = 200
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-dbs-'))

// Deterministic data (bench/lib.js), so runs compare.
const {person, pick} = syntheticPeople()


const store = openStore(dir)
const account = await store.accounts.createAccount('bench')
const user = await store.accounts.addUser({accountId: account.id, login: 'admin', role: 'admin'})
const token = await store.accounts.createToken(user.id)
const db = await store.dbs.create(account.id, {name: 'People', code: 'people', app_id: null, schema, public_methods: {}, fields: {}})
const plan = planSchema(schema)
const table = tablePlan(plan, null)

// 1. Import (the store path of `svc db import`: conversion, index values, batched transactions).
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
}
const importMs = performance.now() - t0

// 2. Queries through the app in-process (routing, validation, SQL, JSON), and through the store for q with/without FTS.
const app = createApp({store, services: createServices(store), systemPromptsDirs: []})
const get = async (qs) => {
  const res = await app.request(`http://localhost/svc/dbs/people/search.json?${qs}`, {}, {svcEmbeddedUserId: user.id})
  if (res.status !== 200) throw new Error(`${qs}: ${res.status} ${await res.text()}`)
  return res.json()
}
async function timed(n, fn) {
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
// A fragment: 5 characters from inside a sampled name (rare), and a common 3-character one.
const frag = (i) => samples[i % samples.length].name.slice(2, 7)
const qHttp = await timed(QUERIES, (i) => get(`q=${encodeURIComponent(frag(i))}&search_in=name`))
const {tableName} = searchTable(plan, undefined)
const spec = (i, useFts) => ({...buildQuery({q: frag(i), search_in: 'name'}, table, true), tableName, useTextIndex: useFts})
const qFts = await timed(QUERIES, (i) => store.dbs.query(account.id, db.id, spec(i, true)))
const noFtsRuns = Math.min(QUERIES, SIZE >= 500_000 ? 20 : 50)
const qScan = await timed(noFtsRuns, (i) => store.dbs.query(account.id, db.id, spec(i, false)))
// Rare, no early hits: the whole name of one of the first records (names are all but unique; newest-first order reaches them last).
const rareFrag = (i) => first[i % first.length].name
const rareSpec = (i, useFts) => ({...buildQuery({q: rareFrag(i), search_in: 'name'}, table, true), tableName, useTextIndex: useFts})
const qRareHttp = await timed(QUERIES, (i) => get(`q=${encodeURIComponent(rareFrag(i))}&search_in=name`))
const qRareScan = await timed(noFtsRuns, (i) => store.dbs.query(account.id, db.id, rareSpec(i, false)))
const rareHits = (await get(`q=${encodeURIComponent(rareFrag(0))}&search_in=name`)).length
const qCommon = await timed(QUERIES, (i) => get(`q=${encodeURIComponent(pick(SYL) + pick(SYL)[0])}&search_in=name`))
const hits = (await get(`q=${encodeURIComponent(frag(0))}&search_in=name`)).length
store.close()

// 3. Create throughput over HTTP, 32 connections: svc private create vs a bare insert route.
function startChild(mode, dataDir = dir, extra = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [new URL('./dbs-server.js', import.meta.url).pathname, mode, dataDir, ...extra], {stdio: ['ignore', 'pipe', 'inherit']})
    child.stdout.once('data', (d) => resolve({child, url: d.toString().trim()}))
    child.once('error', reject)
  })
}
async function cannon(url, path, headers) {
  let i = 0
  const result = await autocannon({
    url: url + path, connections: 32, duration: SECONDS, method: 'POST',
    requests: [{setupRequest: (req) => ({...req, headers: {'content-type': 'application/json', ...headers}, body: JSON.stringify({record: {data: person(SIZE + i++)}})})}],
  })
  return {req_per_s: Math.round(result.requests.average), p50_ms: result.latency.p50, p99_ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors}
}
/** Writes a directory's files through to the disk, so that writing back a fresh copy does not land inside a measurement. */
function flushToDisk(path) {
  for (const name of readdirSync(path)) {
    const fd = openSync(join(path, name), 'r')
    fsyncSync(fd)
    closeSync(fd)
  }
}
// A copy of the data file as it is now (SIZE records), for the bare route that writes where svc writes.
const sameStorageDir = `${dir}-same-storage`
cpSync(dir, sameStorageDir, {recursive: true})
flushToDisk(dir)
flushToDisk(sameStorageDir)
const svcServer = await startChild('svc')
/** Resident memory of a child process in MB (Linux /proc). */
const rssMb = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024)
const idleRss = rssMb(svcServer.child.pid)
// Serve searches over the whole db, then writes, and read the resident memory after each.
for (let i = 0; i < 50; i++) await fetch(`${svcServer.url}/svc/dbs/people/search.json?q=${encodeURIComponent(samples[i % samples.length].name.slice(1, 6))}`, {headers: {authorization: `Bearer ${token}`}}).then((r) => r.arrayBuffer())
const searchRss = rssMb(svcServer.child.pid)
const bare = await startChild('bare')
const columns = table.indexes // field → index column, as svc maps them
const sameStorage = await startChild('bare-same-storage', sameStorageDir, [String(account.id), String(db.id), JSON.stringify(columns)])
// The machine's speed drifts (a shared VM): the three servers take turns, round after round.
const rounds = {svc: [], bare: [], sameStorage: []}
for (let round = 0; round < ROUNDS; round++) {
  rounds.svc.push(await cannon(svcServer.url, '/svc/dbs/people/records.json', {authorization: `Bearer ${token}`}))
  rounds.bare.push(await cannon(bare.url, '/records', {}))
  rounds.sameStorage.push(await cannon(sameStorage.url, '/records', {}))
}
/** The median round by throughput, with every round's throughput beside it. */
const median = (runs) => ({...[...runs].sort((a, b) => a.req_per_s - b.req_per_s)[Math.floor(runs.length / 2)], rounds_req_per_s: runs.map((r) => r.req_per_s)})
const [svcCreate, bareCreate, sameStorageCreate] = [median(rounds.svc), median(rounds.bare), median(rounds.sameStorage)]
const serverMemory = {records: SIZE, rss_mb: rssMb(svcServer.child.pid), idle_rss_mb: idleRss, after_searches_rss_mb: searchRss}
for (const server of [svcServer, bare, sameStorage]) server.child.kill('SIGTERM')
await new Promise((r) => setTimeout(r, 500))
rmSync(dir, {recursive: true, force: true})
rmSync(sameStorageDir, {recursive: true, force: true})

const result = {
  machine: machine(), size: SIZE,
  import: {ms: Math.round(importMs), records_per_s: Math.round(SIZE / (importMs / 1000))},
  filter_indexed_unique_email: stats(filterEmail),
  filter_indexed_city_newest_20: stats(filterCity),
  filter_indexed_age_newest_20: stats(filterAge),
  q_fragment_http_trigram: {...stats(qHttp), hits_first_query: hits},
  q_fragment_store_trigram: stats(qFts),
  q_fragment_store_scan_no_trigram: {...stats(qScan), runs: noFtsRuns},
  q_rare_no_early_hits_http_trigram: {...stats(qRareHttp), hits_first_query: rareHits},
  q_rare_no_early_hits_store_like_scan: {...stats(qRareScan), runs: noFtsRuns},
  q_common_3_chars_http_trigram: stats(qCommon),
  server_memory: serverMemory,
  create_http_32_connections: {
    rounds: ROUNDS, seconds_per_round: SECONDS,
    svc: svcCreate,
    bare_hono_better_sqlite3: bareCreate,
    ratio: +(svcCreate.req_per_s / bareCreate.req_per_s).toFixed(2),
    bare_same_storage: sameStorageCreate,
    ratio_same_storage: +(svcCreate.req_per_s / sameStorageCreate.req_per_s).toFixed(2),
  },
  targets: {filter_p50_ms: 2, q_p50_ms: 20, create_ratio: 0.5},
}
console.log(JSON.stringify(result, null, 2))
