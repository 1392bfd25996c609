// PostgreSQL creates against the same bare route writing the same storage (issue 26's yardstick):
//   node bench/pg-create-vs-bare.mjs <checkout> <database-url> <bench-data-dir> [ROUNDS=3] [SECONDS=5]
// <bench-data-dir> is the data dir of bench/dbs-search.mjs's dataset on that database (its ids).
// svc (`svc serve --database-url`, private records create into the "scale" db) and the bare route
// (bench/dbs-server.js bare-same-storage-pg: Hono + pg, one INSERT into db_records) take turns,
// 32 connections each, round after round; the median round of each counts.
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import autocannon from 'autocannon'
import {machine, PEOPLE_SCHEMA as schema, syntheticPeople} from './lib.js'

const [checkout, url, benchDir, ROUNDS = '3', SECONDS = '5'] = process.argv.slice(2)
if (!benchDir) {
  console.error('usage: node bench/pg-create-vs-bare.mjs <checkout> <database-url> <bench-data-dir> [ROUNDS] [SECONDS]')
  process.exit(2)
}
const root = resolve(checkout)
const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href)
const [{openStoreAt}, {planSchema, tablePlan}] = await Promise.all([load('store/index.js'), load('core/dbs/schema.js')])
const ids = JSON.parse(readFileSync(join(benchDir, 'bench-search.json'), 'utf8'))
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-bare-'))
const store = await openStoreAt({dataDir: dir, databaseUrl: url})
const token = await store.accounts.createToken(ids.userId)
const db = (await store.dbs.get(ids.accountId, 'scale')) ??
  (await store.dbs.create(ids.accountId, {name: 'Scale', code: 'scale', app_id: null, schema, public_methods: {}, fields: {}}))
await store.close()
const columns = tablePlan(planSchema(schema), null).indexes // field → index column, as svc maps them

/** Starts a server that prints its URL on its first line of output. */
function start(args, pattern) {
  const child = spawn(process.execPath, args, {stdio: ['ignore', 'pipe', 'inherit']})
  return new Promise((res, rej) => {
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      const m = pattern.exec(out)
      if (m) res({child, url: m[1]})
    })
    child.once('exit', (code) => rej(new Error(`${args[1]} exited ${code}`)))
  })
}
const svc = await start([join(root, 'bin', 'run.js'), 'serve', '--port', '0', '--data', dir, '--database-url', url, '--quiet'], /Listening on (http:\/\/\S+)/)
const bare = await start([new URL('./dbs-server.js', import.meta.url).pathname, 'bare-same-storage-pg', url, String(ids.accountId), String(db.id), JSON.stringify(columns)], /(http:\/\/\S+)/)

const {person} = syntheticPeople()
let n = 2_000_000
async function cannon(base, path, headers) {
  const result = await autocannon({
    url: base + path, connections: 32, duration: Number(SECONDS), method: 'POST',
    requests: [{setupRequest: (req) => ({...req, headers: {'content-type': 'application/json', ...headers}, body: JSON.stringify({record: {data: person(n++)}})})}],
  })
  return {req_per_s: Math.round(result.requests.average), p50_ms: result.latency.p50, p99_ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors}
}
const rounds = {svc: [], bare: []}
const load0 = loadavg()[0]
try {
  for (let round = 0; round < Number(ROUNDS); round++) {
    rounds.svc.push(await cannon(svc.url, '/svc/dbs/scale/records.json', {authorization: `Bearer ${token}`}))
    rounds.bare.push(await cannon(bare.url, '/records', {}))
  }
} finally {
  for (const server of [svc, bare]) server.child.kill('SIGTERM')
  await new Promise((r) => setTimeout(r, 500))
  rmSync(dir, {recursive: true, force: true})
}
const median = (runs) => ({...[...runs].sort((a, b) => a.req_per_s - b.req_per_s)[Math.floor(runs.length / 2)], rounds_req_per_s: runs.map((r) => r.req_per_s)})
const [svcCreate, bareCreate] = [median(rounds.svc), median(rounds.bare)]
console.log(JSON.stringify({
  machine: machine(), checkout: root, svc: svcCreate, bare_same_storage_pg: bareCreate,
  ratio: +(svcCreate.req_per_s / bareCreate.req_per_s).toFixed(2), target: 0.8, load_avg: [+load0.toFixed(2), +loadavg()[0].toFixed(2)],
}, null, 2))
