// Anonymous read flood (issue 40 N4): account A's p50/p99 (a `me.json` and a private list of a
// small db, one after the other) on a real `svc serve`, first quiet, then while 1, 2 and 3
// anonymous flooders read account B's big public db as fast as the server answers — deep-offset
// `list` and `search` pages, each flooder a process of its own that ignores 429 and Retry-After.
// With REINDEX=1, B's manager also changes the big db's `indexed_fields` back and forth meanwhile.
// Each case: a fresh server over one seeded store, a warm phase, the quiet phase, then the noisy one.
// Target: A's p99 under the flood ≤ 3× its quiet p99.
// Run after `npm run build`:
//   node bench/public-read-flood.mjs [RECORDS=100000] [REQUESTS=400] [FLOODERS=1,2,3] [sqlite|pg]
// pg needs SVC_BENCH_DATABASE_URL (a server URL, e.g. the one scripts/pg-test-cluster.sh prints): a
// database is created on it and dropped after. FLOOD_QUOTA=NAME=N,... passes --quota to the server
// (FLOOD_QUOTA=public_read_ms_per_ip=0,public_read_ms_per_db=0 measures without the read limits).
// ROUNDS=K (default 1) interleaves: after the warm-up, K noisy rounds of REQUESTS/K each, and between
// two of them a quiet round with the flooders stopped (SIGSTOP) and the manager's reindex finished, so
// that a loaded machine's drift falls on both phases alike; the quiet figures are the first quiet
// phase's and these rounds' requests together.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {loadavg, setPriority, tmpdir} from 'node:os'
import {join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {percentile, startServe} from './lib.js'

const root = new URL('..', import.meta.url).pathname
const log = (m) => process.stderr.write(`public-read-flood: ${m}\n`)

if (process.argv[2] === '--flood') await flood(process.argv[3], process.argv[4], Number(process.argv[5]))
else await main()

/** One flooder: deep pages of `list` and `search` of `code`, one after the other, until stdin closes; prints its counts. */
async function flood(url, code, records) {
  setPriority(Number(process.env.FLOOD_NICE ?? 10)) // its client work must not outrank the server here (a real flooder runs elsewhere)
  let stop = false
  process.stdin.resume()
  process.stdin.on('end', () => (stop = true))
  const statuses = {}
  let i = 0
  while (!stop) {
    const offset = Math.floor(Math.random() * Math.max(1, records - 100))
    const path = i++ % 2 ? `/svc/db/${code}/list?limit=100&offset=${offset}` : `/svc/db/${code}/search?q=Person&limit=100&offset=${offset}`
    try {
      const res = await fetch(url + path)
      await res.arrayBuffer()
      statuses[res.status] = (statuses[res.status] ?? 0) + 1
    } catch {
      statuses.reset = (statuses.reset ?? 0) + 1
    }
  }
  process.stdout.on('error', () => undefined) // the bench gone first: nothing to report to
  process.stdout.write(JSON.stringify(statuses))
}

async function main() {
  const records = Number(process.argv[2] ?? 100_000)
  const requests = Math.max(50, Number(process.argv[3] ?? 400))
  const flooders = String(process.argv[4] ?? '1,2,3').split(',').map(Number).filter((n) => n > 0)
  const kind = process.argv[5] ?? 'sqlite'
  const reindex = process.env.REINDEX === '1'
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-flood-'))
  let databaseUrl
  let dropDatabase = async () => {}
  if (kind === 'pg') {
    const server = process.env.SVC_BENCH_DATABASE_URL
    if (!server) throw new Error('pg needs SVC_BENCH_DATABASE_URL')
    const {default: pg} = await import('pg')
    const name = `svc_flood_${process.pid}`
    const admin = async (sql) => {
      const c = new pg.Client({connectionString: server})
      await c.connect()
      try {
        await c.query(sql)
      } finally {
        await c.end()
      }
    }
    await admin(`CREATE DATABASE ${name}`)
    const u = new URL(server)
    u.pathname = `/${name}`
    databaseUrl = u.toString()
    dropDatabase = () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  }
  try {
    const seeded = await seed(dataDir, databaseUrl, records)
    const results = {}
    for (const n of flooders) results[n] = await runCase(n, dataDir, databaseUrl, seeded, records, requests, reindex)
    console.log(JSON.stringify({records, requests, store: kind, reindex, load: loadavg().map((x) => +x.toFixed(2)), results}, null, 2))
  } finally {
    rmSync(dataDir, {recursive: true, force: true})
    await dropDatabase()
  }
}

/** Accounts A (a small private db) and B (a public db of `records` records); their tokens and db ids. */
async function seed(dataDir, databaseUrl, records) {
  const {openStoreAt} = await import(join(root, 'dist/store/index.js'))
  const {indexValues} = await import(join(root, 'dist/core/dbs/records.js'))
  const {planSchema, tablePlan} = await import(join(root, 'dist/core/dbs/schema.js'))
  const store = await openStoreAt({dataDir, databaseUrl})
  try {
    const out = {}
    for (const name of ['a', 'b']) {
      const account = await store.accounts.createAccount(name)
      const user = await store.accounts.addUser({login: `admin_${name}`, role: 'admin', accountId: account.id})
      out[name] = {account: account.id, token: await store.accounts.createToken(user.id)}
    }
    const schema = {fields: {name: 'string', email: 'string', age: 'integer'}, indexed_fields: ['name', 'email']}
    const table = tablePlan(planSchema(schema), null)
    const small = await store.dbs.create(out.a.account, {name: 'Small', code: 'small', app_id: null, schema, public_methods: {}, fields: {}})
    await store.dbs.createRecords(out.a.account, small.id, Array.from({length: 50}, (_, i) => {
      const data = {name: `Friend ${i}`, email: `f${i}@example.com`, age: i}
      return {tableName: null, data, index: indexValues(table, data)}
    }))
    out.a.db = small.id
    const big = await store.dbs.create(out.b.account, {name: 'Big', code: 'big', app_id: null, schema,
      public_methods: {list: true, search: {allowed_params: ['q', 'limit', 'offset']}}, fields: {}})
    const t0 = performance.now()
    for (let i = 0; i < records; i += 5000) {
      await store.dbs.createRecords(out.b.account, big.id, Array.from({length: Math.min(5000, records - i)}, (_, k) => {
        const data = {name: `Person ${i + k}`, email: `user${i + k}@example.com`, age: (i + k) % 90, bio: 'lorem ipsum dolor sit amet'}
        return {tableName: null, data, index: indexValues(table, data)}
      }))
    }
    log(`seeded ${records} records in ${Math.round(performance.now() - t0)} ms`)
    out.b.db = big.id
    return out
  } finally {
    await store.close()
  }
}

async function startServer(dataDir, databaseUrl) {
  const quota = (process.env.FLOOD_QUOTA ?? '').split(',').filter(Boolean).flatMap((q) => ['--quota', q])
  return startServe(root, ['--data', dataDir, ...quota, ...(databaseUrl ? ['--database-url', databaseUrl] : [])])
}

async function runCase(n, dataDir, databaseUrl, seeded, records, requests, reindex) {
  const {url, stop} = await startServer(dataDir, databaseUrl)
  try {
    const call = async (who, method, path, body) => {
      const res = await fetch(url + path, {method, headers: {authorization: `Bearer ${seeded[who].token}`, 'content-type': 'application/json'},
        body: body === undefined ? undefined : JSON.stringify(body)})
      await res.arrayBuffer()
      return res.status
    }
    /** A's requests, one after the other: latencies in ms. */
    const light = async (count) => {
      const xs = []
      let failed = 0
      for (let i = 0; i < count; i++) {
        const t = performance.now()
        // A request that fails (the connection dropped) counts as failed, at the time it took.
        const status = await call('a', 'GET', i % 2 ? '/svc/me.json' : `/svc/dbs/${seeded.a.db}/records.json?limit=10`).catch(() => 0)
        if (status !== 200) failed++
        xs.push(performance.now() - t)
      }
      return summary(xs, failed)
    }
    const summary = (xs, failed) => ({p50_ms: +percentile(xs, 50).toFixed(2), p99_ms: +percentile(xs, 99).toFixed(2), max_ms: +Math.max(...xs).toFixed(1), failed, xs})
    const merge = (phases) => summary(phases.flatMap((p) => p.xs), phases.reduce((n, p) => n + p.failed, 0))
    const rounds = Math.max(1, Number(process.env.ROUNDS ?? 1))
    const per = Math.ceil(requests / rounds)
    await light(50)
    let quiet = await light(per)
    log(`${n} flooder(s), quiet: ${JSON.stringify({...quiet, xs: undefined})}`)
    const procs = Array.from({length: n}, () => {
      const p = spawn(process.execPath, [process.argv[1], '--flood', url, 'big', String(records)], {stdio: ['pipe', 'pipe', 'inherit']})
      p.out = ''
      p.stdout.on('data', (d) => (p.out += d))
      return p
    })
    let reindexing = true
    let paused = false
    let reindexes = 0
    /** The manager's PATCH under way: it answers once its reindex is done. */
    let inflight = Promise.resolve()
    const manager = reindex ? (async () => {
      const fields = [['name', 'email'], ['name', 'email', 'age']]
      while (reindexing) {
        if (paused) {
          await new Promise((r) => setTimeout(r, 50))
          continue
        }
        inflight = call('b', 'PATCH', `/svc/dbs/${seeded.b.db}.json`, {db: {schema: {fields: {name: 'string', email: 'string', age: 'integer'}, indexed_fields: fields[reindexes % 2]}}})
        if ((await inflight) === 200) reindexes++
      }
    })() : Promise.resolve()
    // The flooders spend their bursts first (a minute's budget of an address at once): A is measured in the steady state.
    const warm = Number(process.env.FLOOD_WARM_MS ?? 15_000)
    await new Promise((r) => setTimeout(r, warm))
    const noisyRounds = []
    const quietRounds = [quiet]
    for (let round = 0; round < rounds; round++) {
      noisyRounds.push(await light(per))
      if (round === rounds - 1) break
      // A quiet round: the flooders stopped, the reindex under way finished, their last requests answered.
      for (const p of procs) p.kill('SIGSTOP')
      paused = true
      await inflight.catch(() => undefined)
      await new Promise((r) => setTimeout(r, 1000))
      quietRounds.push(await light(per))
      paused = false
      for (const p of procs) p.kill('SIGCONT')
      await new Promise((r) => setTimeout(r, 3000)) // the flood and the reindexes under way again
    }
    const noisy = merge(noisyRounds)
    if (rounds > 1) quiet = merge(quietRounds)
    reindexing = false
    paused = false
    for (const p of procs) p.stdin.end()
    await Promise.all([manager, ...procs.map((p) => new Promise((r) => (p.exitCode === null ? p.once('exit', r) : r())))])
    const statuses = {}
    for (const p of procs) for (const [s, c] of Object.entries(JSON.parse(p.out || '{}'))) statuses[s] = (statuses[s] ?? 0) + c
    const ratio = +(noisy.p99_ms / quiet.p99_ms).toFixed(2)
    log(`${n} flooder(s), noisy: ${JSON.stringify({...noisy, xs: undefined})} quiet: ${JSON.stringify({...quiet, xs: undefined})} flood answers: ${JSON.stringify(statuses)}${reindex ? `, reindexes ${reindexes}` : ''}; p99 ${ratio}×`)
    delete quiet.xs
    delete noisy.xs
    return {quiet, noisy, load: loadavg().map((x) => +x.toFixed(2)), flood_statuses: statuses, reindexes: reindex ? reindexes : undefined, p99_ratio: ratio, target_met: ratio <= 3}
  } finally {
    await stop()
  }
}
