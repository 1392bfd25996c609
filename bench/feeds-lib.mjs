// Helpers of the live feeds benchmarks (bench/feeds-fanout.mjs, bench/feeds-ceiling.mjs): a seeded
// `svc serve` (SQLite data dir, or PostgreSQL with --database-url), feeds opened as raw HTTP streams
// whose events carry the write's send time, the server's resident memory.
import http from 'node:http'
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {startServe} from './lib.js'

export const root = new URL('..', import.meta.url).pathname
/** Wall-clock milliseconds with sub-millisecond precision, comparable across threads of one machine. */
export const wallNow = () => performance.timeOrigin + performance.now()

/** A data dir (and database) with account `acme`, its admin's token, and a db `live`; the args `svc serve` needs for it. */
export async function seed(databaseUrl) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-feeds-bench-'))
  const {openStore, openStoreAt} = await import('../dist/store/index.js')
  const store = databaseUrl ? await openStoreAt({dataDir: dir, databaseUrl}) : openStore(dir)
  const account = await store.accounts.createAccount(`acme-${Date.now()}`)
  const user = await store.accounts.addUser({login: `admin${Date.now()}`, role: 'admin', accountId: account.id})
  const token = await store.accounts.createToken(user.id)
  await store.close()
  return {dir, token, args: ['--data', dir, ...(databaseUrl ? ['--database-url', databaseUrl] : [])]}
}

/** `svc serve` with the feed quotas out of the way. */
export async function serve(seeded, extra = []) {
  const quotas = ['feeds_per_account=50000', 'feeds_per_server=50000'].flatMap((q) => ['--quota', q])
  return startServe(root, [...seeded.args, ...quotas, ...extra])
}

export async function request(url, token, method, path, body) {
  const res = await fetch(url + path, {method, headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
    body: body === undefined ? undefined : JSON.stringify(body)})
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

/** Resident memory of a process, bytes (Linux). */
export function rss(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) * 1024 : Number.NaN
}

/** CPU time a process has used so far (user + system), ms (Linux; clock ticks of 10 ms). */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')
  // After the command: state is field 3, utime 14 and stime 15 (proc(5)), here indexes 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const agent = new http.Agent({keepAlive: false, maxSockets: Infinity})

/**
 * Opens a feed as a raw stream. `onEvent(sentAt)` for each event whose record carries `t` (its write's
 * send time); resolves once the stream answered 200.
 */
export function openStream(url, path, token, onEvent = () => {}) {
  return new Promise((resolve, reject) => {
    const req = http.get(url + path, {agent, headers: {authorization: `Bearer ${token}`, accept: 'text/event-stream'}}, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`feed answered ${res.statusCode}`))
      res.setEncoding('utf8')
      let buffer = ''
      res.on('data', (chunk) => {
        buffer += chunk
        const end = buffer.lastIndexOf('\n\n')
        if (end < 0) return
        const frames = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        for (const m of frames.matchAll(/"t":([0-9.]+)/g)) onEvent(Number(m[1]))
      })
      res.on('error', () => {})
      resolve({close: () => req.destroy()})
    })
    req.on('error', reject)
  })
}

export function summary(samples) {
  const sorted = Float64Array.from(samples).sort()
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
  return {n: sorted.length, p50: +at(50).toFixed(1), p99: +at(99).toFixed(1), max: +at(100).toFixed(1)}
}

/** The bare fan-out: GET (any path) holds a stream; POST writes its body as one SSE frame to every stream. No store, no journal, no auth. */
const BARE = `
const http = require('node:http')
const streams = new Set()
let n = 0
const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, {'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store'})
    res.write('retry: 2000\\n: connected\\n\\n')
    streams.add(res)
    req.on('close', () => streams.delete(res))
    return
  }
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString()
    const frame = Buffer.from('event: create\\nid: ' + String(++n).padStart(16, '0') + '\\ndata: ' + body + '\\n\\n')
    for (const s of streams) s.write(frame)
    res.writeHead(201, {'content-type': 'application/json; charset=utf-8'})
    res.end(body)
  })
})
server.listen(0, '127.0.0.1', () => console.log('Listening on http://127.0.0.1:' + server.address().port))
`

/**
 * The bare SSE fan-out of the same events, in a process of its own (what this machine does with no
 * store at all): `{url, server, stop, streamPath, write(data)}`, `write` posting a record-shaped body
 * (the bytes of svc's create event) that every open stream receives as one frame.
 */
export async function startBare() {
  const server = spawn(process.execPath, ['-e', BARE], {stdio: ['ignore', 'pipe', 'inherit']})
  const url = await new Promise((resolve, reject) => {
    let out = ''
    server.stdout.on('data', (d) => {
      out += d
      const m = /Listening on (\S+)/.exec(out)
      if (m) resolve(m[1])
    })
    server.once('exit', (code) => reject(new Error(`the bare fan-out exited ${code}`)))
  })
  const write = async (data) => {
    const now = new Date().toISOString()
    const res = await fetch(`${url}/emit`, {method: 'POST', headers: {'content-type': 'application/json'},
      body: JSON.stringify({id: 1, table_name: null, data, created_at: now, updated_at: now})})
    await res.text()
  }
  const stop = async () => {
    server.kill('SIGTERM')
    await new Promise((r) => (server.exitCode === null && server.signalCode === null ? server.once('exit', r) : r()))
  }
  return {url, server, stop, streamPath: '/stream', write}
}
