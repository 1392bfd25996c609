// svc against json-server (the npm package most users reach for as a local JSON API), side by side
// in the same run: same preloaded records, same payloads, same load tool (autocannon, 32
// connections), each server in its own process.
//   node bench/json-server.js [RECORDS=10000] [SECONDS=10]      (build first: npm run build)
// Create: POST one record per request. List: the newest 20 records (json-server:
// `?_sort=id&_order=desc&_limit=20`; svc: `GET /svc/dbs/:id/records.json`, newest 20 by default).
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import autocannon from 'autocannon'
import {machine} from './lib.js'

const RECORDS = Number(process.argv[2] ?? 10_000)
const SECONDS = Number(process.argv[3] ?? 10)
const CONNECTIONS = 32
const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const require = createRequire(import.meta.url)
const jsonServerBin = join(dirname(require.resolve('json-server/package.json')), 'lib', 'cli', 'bin.js')
const jsonServerVersion = require('json-server/package.json').version
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-json-server-'))
const env = {...process.env, SVC_URL: '', SVC_DATA: '', SVC_PROFILE: '', SVC_TOKEN: '', SVC_CONFIG_DIR: dir}

const record = (i) => ({title: `Record ${i}`, price: i % 1000, done: i % 2 === 0, tags: ['bench', `t${i % 7}`]})

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const {port} = s.address()
      s.close(() => resolve(port))
    })
  })
}

async function waitFor(url, headers = {}) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url, {headers})).ok) return
    } catch {}
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${url} did not answer`)
}

function startSvc(data) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data', data], {env})
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      const m = /Listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve({child, url: m[1]})
    })
    child.stderr.on('data', (d) => (out += d))
    child.on('exit', (code) => reject(new Error(`svc serve exited ${code}: ${out}`)))
  })
}

async function load(title, url, options) {
  const result = await autocannon({url, connections: CONNECTIONS, duration: SECONDS, title, ...options})
  return {req_per_s: Math.round(result.requests.average), p50_ms: result.latency.p50, p99_ms: result.latency.p99,
    errors: result.errors + result.non2xx}
}

async function preload(post, n) {
  let next = 0
  const worker = async () => {
    while (next < n) await post(record(next++))
  }
  await Promise.all(Array.from({length: 16}, worker))
}

async function benchSvc() {
  const data = join(dir, 'svc')
  const user = spawnSync(process.execPath, [bin, 'admin', 'user', 'add', 'bench', '--role', 'admin', '--data', data, '--json'], {env, encoding: 'utf8'})
  if (user.status !== 0) throw new Error(user.stderr)
  const {token} = JSON.parse(user.stdout)
  const {child, url} = await startSvc(data)
  const headers = {authorization: `Bearer ${token}`, 'content-type': 'application/json'}
  try {
    const res = await fetch(`${url}/svc/dbs.json`, {method: 'POST', headers, body: JSON.stringify({db: {name: 'Bench', code: 'bench'}})})
    if (!res.ok) throw new Error(`create db: ${res.status} ${await res.text()}`)
    const db = await res.json()
    const records = `${url}/svc/dbs/${db.id}/records.json`
    await preload(async (data) => {
      const r = await fetch(records, {method: 'POST', headers, body: JSON.stringify({record: {data}})})
      if (r.status !== 201) throw new Error(`preload: ${r.status}`)
      await r.arrayBuffer()
    }, RECORDS)
    const list = await load('svc list', records, {headers})
    const create = await load('svc create', records, {method: 'POST', headers, body: JSON.stringify({record: {data: record(-1)}})})
    return {create, list}
  } finally {
    child.kill('SIGTERM')
  }
}

async function benchJsonServer() {
  const file = join(dir, 'db.json')
  writeFileSync(file, JSON.stringify({records: Array.from({length: RECORDS}, (_, i) => ({id: i + 1, ...record(i)}))}))
  const port = await freePort()
  const child = spawn(process.execPath, [jsonServerBin, file, '--port', String(port), '--host', '127.0.0.1', '--quiet'], {stdio: 'ignore'})
  const url = `http://127.0.0.1:${port}`
  try {
    await waitFor(`${url}/records?_limit=1`)
    const headers = {'content-type': 'application/json'}
    const list = await load('json-server list', `${url}/records?_sort=id&_order=desc&_limit=20`, {})
    const create = await load('json-server create', `${url}/records`, {method: 'POST', headers, body: JSON.stringify(record(-1))})
    return {create, list}
  } finally {
    child.kill('SIGTERM')
  }
}

try {
  const svc = await benchSvc()
  const jsonServer = await benchJsonServer()
  console.log(JSON.stringify({
    machine: machine(), records: RECORDS, seconds: SECONDS, connections: CONNECTIONS,
    json_server_version: jsonServerVersion, svc, json_server: jsonServer,
    create_ratio: +(svc.create.req_per_s / Math.max(1, jsonServer.create.req_per_s)).toFixed(2),
    list_ratio: +(svc.list.req_per_s / Math.max(1, jsonServer.list.req_per_s)).toFixed(2),
  }, null, 2))
} finally {
  rmSync(dir, {recursive: true, force: true})
}
