// Scale-out on paper: the CPU time one request costs in svc and in PostgreSQL, for a record create
// and for an indexed read, measured on one `svc serve --database-url` instance:
//   node bench/pg-cpu-per-request.mjs <checkout> <database-url> <pg-data-dir> <bench-data-dir> [SECONDS=8]
// <pg-data-dir> is the cluster's data directory (its postmaster.pid names the server; the CPU of
// the server and of every process it started is counted); <bench-data-dir> is the data dir of
// bench/dbs-search.mjs's 1M-record dataset on that database (its ids). Creates go to a db of their
// own ("scale"), so the dataset's answers do not change. CPU times come from /proc (Linux), so the
// load of other processes on the machine slows the figures down less than it slows latencies;
// the load average is written next to them. One PostgreSQL core feeds svc_cpu / pg_cpu instances,
// each busy on one core of its own, before PostgreSQL is the bottleneck.
import {spawn} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import autocannon from 'autocannon'
import {machine, PEOPLE_SCHEMA as schema, syntheticPeople} from './lib.js'

const [checkout, url, pgData, benchDir, SECONDS = '8'] = process.argv.slice(2)
if (!benchDir) {
  console.error('usage: node bench/pg-cpu-per-request.mjs <checkout> <database-url> <pg-data-dir> <bench-data-dir> [SECONDS]')
  process.exit(2)
}
const root = resolve(checkout)
const TICK_MS = 10 // USER_HZ is 100 on Linux
const ids = JSON.parse(readFileSync(join(benchDir, 'bench-search.json'), 'utf8'))
const {openStoreAt} = await import(pathToFileURL(join(root, 'dist', 'store', 'index.js')).href)
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-cpu-'))
const store = await openStoreAt({dataDir: dir, databaseUrl: url})
const token = await store.accounts.createToken(ids.userId)
if (!(await store.dbs.get(ids.accountId, 'scale'))) {
  await store.dbs.create(ids.accountId, {name: 'Scale', code: 'scale', app_id: null, schema, public_methods: {}, fields: {}})
}
await store.close()

/** utime + stime of a process, in ms. */
const cpuOf = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS
  } catch {
    return 0 // ended meanwhile
  }
}
/** The PostgreSQL server's processes: the postmaster and its children, by pid. */
const postgresPids = () => {
  const postmaster = Number(readFileSync(join(pgData, 'postmaster.pid'), 'utf8').split('\n')[0])
  const pids = [postmaster]
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ')[1])
      if (ppid === postmaster) pids.push(Number(entry))
    } catch {}
  }
  return pids
}
/** CPU ms of the PostgreSQL processes; backends that end meanwhile are counted up to their last reading. */
const pgCpu = (seen) => {
  for (const pid of postgresPids()) seen.set(pid, Math.max(seen.get(pid) ?? 0, cpuOf(pid)))
  return [...seen.values()].reduce((a, b) => a + b, 0)
}

const server = spawn(process.execPath, [join(root, 'bin', 'run.js'), 'serve', '--port', '0', '--data', dir, '--database-url', url, '--quiet'], {stdio: ['ignore', 'pipe', 'inherit']})
const base = await new Promise((res, rej) => {
  let out = ''
  server.stdout.on('data', (d) => {
    out += d
    const m = /Listening on (http:\/\/\S+)/.exec(out)
    if (m) res(m[1])
  })
  server.once('exit', (code) => rej(new Error(`svc serve exited ${code}`)))
})

const {person} = syntheticPeople()
const samples = Array.from({length: 1000}, (_, i) => person(i).email)
let n = 0
// A fresh headers object per request: autocannon adds content-length to the one it is given.
const headers = {'content-type': 'application/json', authorization: `Bearer ${token}`}
async function measure(name, connections, request) {
  await autocannon({url: base, connections, duration: 1, requests: [{setupRequest: (req) => ({...req, ...request(), headers: {...headers}})}]}) // warm
  const seen = new Map()
  const pg0 = pgCpu(seen)
  const svc0 = cpuOf(server.pid)
  const load0 = loadavg()[0]
  const own0 = process.cpuUsage()
  const t0 = performance.now()
  const result = await autocannon({url: base, connections, duration: Number(SECONDS), timeout: 10, requests: [{setupRequest: (req) => ({...req, ...request(), headers: {...headers}})}]})
  const seconds = (performance.now() - t0) / 1000
  const svcMs = cpuOf(server.pid) - svc0
  const pgMs = pgCpu(seen) - pg0
  const done = result.requests.total
  const own = process.cpuUsage(own0)
  return {
    requests: done, non2xx: result.non2xx, errors: result.errors, req_per_s: Math.round(done / seconds),
    svc_cpu_ms_per_request: +(svcMs / done).toFixed(3), pg_cpu_ms_per_request: +(pgMs / done).toFixed(3),
    load_generator_cpu_ms_per_request: +((own.user + own.system) / 1000 / done).toFixed(3),
    instances_per_pg_core: +(svcMs / pgMs).toFixed(1), load_avg: [+load0.toFixed(2), +loadavg()[0].toFixed(2)], name,
  }
}

try {
  const create = process.env.SVC_BENCH_SKIP_CREATE ? undefined : await measure('create', 32, () => ({
    method: 'POST', path: '/svc/dbs/scale/records.json', body: JSON.stringify({record: {data: person(1_000_000 + n++)}}),
  }))
  const read = await measure('indexed_read', 8, () => ({
    method: 'GET', path: `/svc/dbs/people/search.json?filter[email]=${encodeURIComponent(samples[n++ % samples.length])}`,
  }))
  console.log(JSON.stringify({machine: machine(), checkout: root, create, indexed_read: read}, null, 2))
} finally {
  server.kill('SIGTERM')
  await new Promise((r) => setTimeout(r, 500))
  rmSync(dir, {recursive: true, force: true})
}
