// Live feeds' events-per-second ceiling against a bare SSE fan-out of the same events (issue 37):
// FEEDS (100) open streams; CONCURRENCY (8) writers create records as fast as the server takes them
// for SECONDS (10); the events the streams receive per second are counted. The bare fan-out is a
// plain node:http server in a process of its own that takes the same POST bodies and writes each, as
// an SSE frame of the same bytes, to every open stream (no store, no journal, no auth). Goal: svc's
// ceiling ≥ 0.5× the bare one's on the same machine.
// Run after `npm run build`: node bench/feeds-ceiling.mjs [--database-url URL] [--feeds 100] [--seconds 10] [--concurrency 8]
import {loadavg} from 'node:os'
import {machine} from './lib.js'
import {cpuMs, openStream, request, seed, serve, startBare, wallNow} from './feeds-lib.mjs'

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i < 0 ? fallback : process.argv[i + 1]
}
const databaseUrl = arg('database-url')
const FEEDS = Number(arg('feeds', 100))
const SECONDS = Number(arg('seconds', 10))
const CONCURRENCY = Number(arg('concurrency', 8))
const log = (m) => process.stderr.write(`feeds-ceiling: ${m}\n`)

/** Opens the streams, runs the writers for SECONDS, answers events received per second. */
async function run(url, streamPath, token, write, pid) {
  let events = 0
  const streams = []
  for (let i = 0; i < FEEDS; i++) streams.push(await openStream(url, streamPath, token, () => events++))
  await new Promise((r) => setTimeout(r, 1000))
  events = 0
  const cpu0 = cpuMs(pid)
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
  const cpu = cpuMs(pid) - cpu0
  for (const s of streams) s.close()
  return {writes_per_second: +(writes / writeSeconds).toFixed(1), events_per_second: Math.round(events / seconds), events, expected: writes * FEEDS,
    server_cpu_ms: cpu, server_cpu_us_per_event: events > 0 ? +((cpu * 1000) / events).toFixed(2) : null}
}

const out = {machine: machine(), store: databaseUrl ? 'pg' : 'sqlite', feeds: FEEDS, concurrency: CONCURRENCY, loadavg_start: loadavg().map((x) => +x.toFixed(2))}
// svc
const seeded = await seed(databaseUrl)
const svc = await serve(seeded)
const db = await request(svc.url, seeded.token, 'POST', '/svc/dbs.json', {db: {name: 'Ceiling', code: 'ceiling'}})
const svcStreams = `/svc/dbs/${db.id}/changes`
out.svc = await run(svc.url, svcStreams, seeded.token, (data) => request(svc.url, seeded.token, 'POST', `/svc/dbs/${db.id}/records.json`, {record: {data}}), svc.server.pid)
  .catch((e) => ({error: e.message}))
await svc.stop()
log(`svc: ${JSON.stringify(out.svc)}`)
// bare
const bare = await startBare()
out.bare = await run(bare.url, bare.streamPath, 'none', bare.write, bare.server.pid)
await bare.stop()
log(`bare: ${JSON.stringify(out.bare)}`)
out.ratio = +(out.svc.events_per_second / out.bare.events_per_second).toFixed(2)
out.loadavg_end = loadavg().map((x) => +x.toFixed(2))
console.log(JSON.stringify(out, null, 2))
