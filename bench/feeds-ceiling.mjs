// Live feeds' events-per-second ceiling against a bare SSE fan-out of the same events (issue 37):
// FEEDS (100) open streams; CONCURRENCY (8) writers create records as fast as the server takes them
// for SECONDS (10); the events the streams receive per second are counted. The bare fan-out is a
// plain node:http server in a process of its own that takes the same POST bodies and writes each, as
// an SSE frame of the same bytes, to every open stream (no store, no journal, no auth). Goal: svc's
// ceiling ≥ 0.5× the bare one's on the same machine.
// Run after `npm run build`: node bench/feeds-ceiling.mjs [--database-url URL] [--feeds 100] [--seconds 10] [--concurrency 8]
import {spawn} from 'node:child_process'
import {loadavg} from 'node:os'
import {machine} from './lib.js'
import {openStream, request, seed, serve, wallNow} from './feeds-lib.mjs'

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i < 0 ? fallback : process.argv[i + 1]
}
const databaseUrl = arg('database-url')
const FEEDS = Number(arg('feeds', 100))
const SECONDS = Number(arg('seconds', 10))
const CONCURRENCY = Number(arg('concurrency', 8))
const log = (m) => process.stderr.write(`feeds-ceiling: ${m}\n`)

/** The bare fan-out: GET /stream holds a stream; POST /emit writes the body as one SSE frame to every stream. */
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

/** Opens the streams, runs the writers for SECONDS, answers events received per second. */
async function run(url, streamPath, token, write) {
  let events = 0
  const streams = []
  for (let i = 0; i < FEEDS; i++) streams.push(await openStream(url, streamPath, token, () => events++))
  await new Promise((r) => setTimeout(r, 1000))
  events = 0
  const t0 = wallNow()
  let writes = 0
  await Promise.all(Array.from({length: CONCURRENCY}, async () => {
    while (wallNow() - t0 < SECONDS * 1000) {
      await write({t: wallNow(), i: writes, text: 'a change of a record'})
      writes++
    }
  }))
  const writeSeconds = (wallNow() - t0) / 1000
  // The events already sent are still counted (what the streams were handed).
  await new Promise((r) => setTimeout(r, 2000))
  const seconds = (wallNow() - t0) / 1000
  for (const s of streams) s.close()
  return {writes_per_second: +(writes / writeSeconds).toFixed(1), events_per_second: Math.round(events / seconds), events, expected: writes * FEEDS}
}

const out = {machine: machine(), store: databaseUrl ? 'pg' : 'sqlite', feeds: FEEDS, concurrency: CONCURRENCY, loadavg_start: loadavg().map((x) => +x.toFixed(2))}
// svc
const seeded = await seed(databaseUrl)
const svc = await serve(seeded)
const db = await request(svc.url, seeded.token, 'POST', '/svc/dbs.json', {db: {name: 'Ceiling', code: 'ceiling'}})
const svcStreams = `/svc/dbs/${db.id}/changes`
out.svc = await run(svc.url, svcStreams, seeded.token, (data) => request(svc.url, seeded.token, 'POST', `/svc/dbs/${db.id}/records.json`, {record: {data}}))
  .catch((e) => ({error: e.message}))
await svc.stop()
log(`svc: ${JSON.stringify(out.svc)}`)
// bare
const bare = spawn(process.execPath, ['-e', BARE], {stdio: ['ignore', 'pipe', 'inherit']})
const bareUrl = await new Promise((resolve) => bare.stdout.on('data', (d) => {
  const m = /Listening on (\S+)/.exec(String(d))
  if (m) resolve(m[1])
}))
out.bare = await run(bareUrl, '/stream', 'none', async (data) => {
  const res = await fetch(`${bareUrl}/emit`, {method: 'POST', headers: {'content-type': 'application/json'},
    body: JSON.stringify({id: 1, table_name: null, data, created_at: new Date().toISOString(), updated_at: new Date().toISOString()})})
  await res.text()
})
bare.kill()
log(`bare: ${JSON.stringify(out.bare)}`)
out.ratio = +(out.svc.events_per_second / out.bare.events_per_second).toFixed(2)
out.loadavg_end = loadavg().map((x) => +x.toFixed(2))
console.log(JSON.stringify(out, null, 2))
