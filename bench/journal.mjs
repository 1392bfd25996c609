// The journal's cost and reads (docs/history.md, docs/benchmarks.md "Journal"):
//   node bench/journal.mjs <checkout-with> <checkout-without> [CREATES=4000] [ENTRIES=200000] [DATABASE_URL]
// 1. Record creates through the store (32 in flight, as concurrent requests make them; SQLite's group
//    commit shares their commits), the build with the journal against one without it (main before
//    the journal), fresh data each round, rounds interleaved; the median round of each.
// 2. History reads with ENTRIES journal entries in one account (imported records, each journaled):
//    one resource's history, the account's newest page, a door filter since an hour; p50/p95 of 200.
// 3. Pruning all of them (made older than the retention): the longest pause of the event loop.
// Without DATABASE_URL, SQLite; with it, PostgreSQL (each round a fresh database of that server).
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import {machine, percentile, startServe} from './lib.js'

const flags = new Set(process.argv.slice(2).filter((a) => a.startsWith('--')))
const [withRoot, withoutRoot, CREATES = '4000', ENTRIES = '200000', URL_ = ''] = process.argv.slice(2).filter((a) => !a.startsWith('--'))
if (!withoutRoot) {
  console.error('usage: node bench/journal.mjs <checkout-with> <checkout-without> [CREATES] [ENTRIES] [DATABASE_URL] [--http] [--no-store-creates] [--no-reads]\n' +
    '  ENTRIES=1000000 for the issue\'s sizes (SQLite: ~10 min of fill on a quiet 2-core machine); --http adds creates over HTTP (svc serve of each checkout)')
  process.exit(2)
}
const creates = Number(CREATES)
const entries = Number(ENTRIES)
const load = (root, path) => import(pathToFileURL(join(resolve(root), 'dist', path)).href)

/** A fresh store of a checkout: SQLite in a temp dir, or a new PostgreSQL database. */
async function freshStore(root) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-journal-'))
  let databaseUrl
  let drop = async () => {}
  if (URL_) {
    const {default: pg} = await import('pg')
    const admin = new pg.Client({connectionString: URL_})
    await admin.connect()
    const name = `bench_journal_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
    await admin.query(`CREATE DATABASE ${name}`)
    await admin.end()
    const u = new URL(URL_)
    u.pathname = `/${name}`
    databaseUrl = u.toString()
    drop = async () => {
      const c = new pg.Client({connectionString: URL_})
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    }
  }
  const {openStoreAt} = await load(root, 'store/index.js')
  const store = await openStoreAt({dataDir: dir, databaseUrl})
  const account = await store.accounts.createAccount('bench')
  const db = await store.dbs.create(account.id, {name: 'Bench', code: 'bench', app_id: null, schema: null, public_methods: {}, fields: {}})
  return {store, account: account.id, db: db.id, dir, url: databaseUrl, async close() {
    await store.close()
    await drop()
    rmSync(dir, {recursive: true, force: true})
  }}
}

const record = (i) => ({tableName: null, data: {name: `Person ${i}`, city: ['Paris', 'Lyon', 'Gdansk'][i % 3], age: i % 90, note: 'x'.repeat(60)}, index: {}})

/** CPU seconds a process has used (user + system, Linux /proc), or null elsewhere. */
function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return null
  }
}

async function createsPerSecond(root) {
  const s = await freshStore(root)
  try {
    let next = 0
    const cpu0 = process.cpuUsage()
    const started = performance.now()
    await Promise.all(Array.from({length: 32}, async () => {
      while (next < creates) await s.store.dbs.createRecord(s.account, s.db, record(next++))
    }))
    const cpu = process.cpuUsage(cpu0)
    // This process's CPU per create: the whole create on SQLite (on the event loop); the client's part on PostgreSQL.
    return {rate: creates / ((performance.now() - started) / 1000), cpuUs: (cpu.user + cpu.system) / creates}
  } finally {
    await s.close()
  }
}

/**
 * Record creates as a client makes them: `POST /svc/dbs/:id/records.json` on `svc serve` of the
 * checkout (its own data dir or database), 32 requests in flight, a bearer token.
 */
async function httpCreatesPerSecond(root) {
  const s = await freshStore(root)
  const user = await s.store.accounts.addUser({login: 'bench', role: 'admin', accountId: s.account})
  const token = await s.store.accounts.createToken(user.id)
  await s.store.close()
  const {url, stop, server} = await startServe(root, ['--data', s.dir, ...(s.url ? ['--database-url', s.url] : [])])
  try {
    const post = async (i) => {
      const res = await fetch(`${url}/svc/dbs/${s.db}/records.json`, {method: 'POST', headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
        body: JSON.stringify({record: {data: record(i).data}})})
      await res.arrayBuffer()
      if (res.status !== 201) throw new Error(`create answered ${res.status}`)
    }
    for (let i = 0; i < 64; i++) await post(-i) // warm-up
    let next = 0
    const cpu0 = cpuOf(server.pid)
    const started = performance.now()
    await Promise.all(Array.from({length: 32}, async () => {
      while (next < creates) await post(next++)
    }))
    return {rate: creates / ((performance.now() - started) / 1000), cpuUs: cpuOf(server.pid) === null ? null : ((cpuOf(server.pid) - cpu0) * 1e6) / creates}
  } finally {
    await stop()
    await s.close().catch(() => undefined)
  }
}

// 1. creates, interleaved rounds: through the store, and (--http) through svc serve
const rounds = 5
const med = (a) => percentile(a, 50)
async function interleaved(perSecond) {
  const rates = {with: [], without: []}
  const cpu = {with: [], without: []}
  for (let r = 0; r < rounds; r++) {
    for (const [key, root] of [['without', withoutRoot], ['with', withRoot]]) {
      const {rate, cpuUs} = await perSecond(root)
      rates[key].push(rate)
      if (cpuUs !== null) cpu[key].push(cpuUs)
    }
  }
  const cpuMed = (a) => (a.length ? +med(a).toFixed(1) : null)
  return {
    with_per_s: Math.round(med(rates.with)), without_per_s: Math.round(med(rates.without)),
    ratio: +(med(rates.with) / med(rates.without)).toFixed(3),
    // CPU per create of the process doing the work (median of rounds): far less sensitive to the machine's load than a rate.
    cpu_us_per_create: {with: cpuMed(cpu.with), without: cpuMed(cpu.without),
      ratio: cpu.with.length ? +(med(cpu.without) / med(cpu.with)).toFixed(3) : null},
    // Each round's ratio (with / without of the same round): the spread the machine's load gives.
    round_ratios: rates.with.map((w, i) => +(w / rates.without[i]).toFixed(2)), rounds, creates_per_round: creates,
  }
}
const createsResult = flags.has('--no-store-creates') ? null : await interleaved(createsPerSecond)
if (createsResult) console.error('creates (store)', createsResult)
const httpCreates = flags.has('--http') ? await interleaved(httpCreatesPerSecond) : null
if (httpCreates) console.error('creates (HTTP)', httpCreates)
if (flags.has('--no-reads')) {
  console.log(JSON.stringify({store: URL_ ? 'pg' : 'sqlite', creates: createsResult, http_creates: httpCreates, machine: machine(), load: loadavg().map((x) => +x.toFixed(2))}, null, 2))
  process.exit(0)
}

// 2. history reads at ENTRIES entries
const s = await freshStore(withRoot)
const fillStarted = performance.now()
for (let i = 0; i < entries; i += 5000) {
  await s.store.dbs.createRecords(s.account, s.db, Array.from({length: Math.min(5000, entries - i)}, (_, k) => record(i + k)))
}
const fillSeconds = (performance.now() - fillStarted) / 1000
const target = await s.store.dbs.createRecord(s.account, s.db, record(-1))
for (let i = 0; i < 5; i++) await s.store.dbs.updateRecord(s.account, s.db, target.id, () => record(-2 - i))
const since = new Date(Date.now() - 3_600_000).toISOString()
async function p(fn) {
  const samples = []
  // 200 samples, or fewer when they take long (a filter no index answers walks every entry since T).
  const until = performance.now() + 60_000
  for (let i = 0; i < 200 && (i < 5 || performance.now() < until); i++) {
    const t = performance.now()
    await fn()
    samples.push(performance.now() - t)
  }
  return {p50_ms: +percentile(samples, 50).toFixed(2), p95_ms: +percentile(samples, 95).toFixed(2), samples: samples.length}
}
const j = s.store.journal
const reads = {
  resource: await p(() => j.list(s.account, {kinds: ['record'], id: String(target.id), limit: 20})),
  account_newest: await p(() => j.list(s.account, {limit: 20})),
  door_mcp_since_1h: await p(() => j.list(s.account, {door: 'mcp', since, limit: 20})),
  entry_with_previous: await p(async () => {
    const e = (await j.list(s.account, {kinds: ['record'], id: String(target.id), limit: 1}))[0]
    await j.previous(e)
  }),
}
console.error('reads', reads)

// 3. pruning every entry (made older than the retention), the longest event-loop pause meanwhile
const old = new Date(Date.now() - 40 * 86_400_000).toISOString()
const raw = await rawOf(s)
await raw.run('UPDATE journal SET at = ?', [old])
// The records are deleted too (so no minimum of versions keeps them): their db is purged first.
await s.store.dbs.delete(s.account, s.db)
await raw.run('UPDATE dbs SET deleted_at = ?', [old])
// The aging rewrote every entry: its WAL (GBs at 1M) is checkpointed before the clock starts, and the
// pruning runs with the store's checkpointer, off the thread as \`svc serve\` runs it — else SQLite's
// auto-checkpoint copies that WAL back inside the first slice's commit, on the event loop (15 s at 1M).
await raw.checkpoint?.()
await raw.close()
const maintenance = s.store.maintenance()
const {journalRetention} = await load(withRoot, 'services/journal-retention.js')
let longest = 0
let last = performance.now()
const timer = setInterval(() => {
  const now = performance.now()
  longest = Math.max(longest, now - last)
  last = now
}, 1)
// The deleted db's purge (its records, the full-text index's emptied segments: the db area's own cost,
// docs/benchmarks.md "Deleting a db") first, measured apart; then the retention pass, which is then
// the journal's pruning alone.
const purgeStarted = performance.now()
await s.store.dbs.purgeDeleted(undefined, new Date(Date.now() - 30 * 86_400_000).toISOString())
const purge = {seconds: +((performance.now() - purgeStarted) / 1000).toFixed(1), longest_pause_ms: Math.round(longest)}
longest = 0
const pruneStarted = performance.now()
const retention = journalRetention(s.store, {})
const removed = await retention.runOnce()
await retention.stop()
clearInterval(timer)
await maintenance.stop()
const prune = {removed, seconds: +((performance.now() - pruneStarted) / 1000).toFixed(1), longest_pause_ms: Math.round(longest), db_purge_before: purge}
console.error('prune', prune)
await s.close()

console.log(JSON.stringify({
  store: URL_ ? 'pg' : 'sqlite', creates: createsResult, http_creates: httpCreates, entries, fill_seconds: +fillSeconds.toFixed(1), reads, prune,
  machine: machine(), load: loadavg().map((x) => +x.toFixed(2)),
}, null, 2))

/** Raw SQL on the store's database (outside the store: the bench ages entries). */
async function rawOf(s) {
  if (!URL_) {
    const {default: Database} = await import('better-sqlite3')
    const db = new Database(join(s.dir, 'svc.sqlite'))
    return {run: async (sql, params) => db.prepare(sql).run(...params), checkpoint: async () => db.pragma('wal_checkpoint(TRUNCATE)'), close: async () => db.close()}
  }
  const {default: pg} = await import('pg')
  const c = new pg.Client({connectionString: s.url})
  await c.connect()
  let n = 0
  return {run: async (sql, params) => c.query(sql.replace(/\?/g, () => `$${++n}`), params).finally(() => (n = 0)), close: () => c.end()}
}
