// Live feeds under load (issue 37), on a real `svc serve` of the build:
// 1. FEEDS (1,000) open feeds of one db, writes at RATE (100/s) for SECONDS: change-to-event p50/p99
//    (from the write's send to the event's arrival: the write's own latency included, and shown
//    beside it as write_ms, send → answer), and the
//    server's resident memory per open feed;
// 2. IDLE (10,000) idle feeds held: memory per feed, and a write still reaching them;
// 3. with --database-url URL --instances 2: two servers over one PostgreSQL database, the feeds on
//    both, the writes through the first: the p99 of the feeds on the other instance.
// The feeds are read by worker threads (2), so that the client's parsing is not the server's figure.
// --bare: the same case (feeds, rate, seconds, idle feeds) against the bare SSE fan-out of
// bench/feeds-ceiling.mjs (plain node:http, no store: bench/feeds-lib.mjs startBare), so that the
// targets can be judged against what this machine does with no store at all.
// Targets: p50 ≤ 20 ms, p99 ≤ 100 ms (two instances: p99 ≤ 200 ms), memory per feed ≤ 20 KB.
// Run after `npm run build`: node bench/feeds-fanout.mjs [--database-url URL] [--instances 2]
//   [--feeds 1000] [--rate 100] [--seconds 10] [--idle 10000] [--bare]
import {isMainThread, parentPort, Worker, workerData} from 'node:worker_threads'
import {loadavg} from 'node:os'
import {machine} from './lib.js'
import {cpuMs, openStream, request, rss, seed, serve, startBare, summary, wallNow} from './feeds-lib.mjs'

if (!isMainThread) {
  // A reader: opens its share of the feeds, then reports the latencies it saw.
  const {urls, path, token, count} = workerData
  const samples = []
  let events = 0
  const streams = []
  for (let i = 0; i < count; i++) {
    const instance = i % urls.length
    streams.push(await openStream(urls[instance], path, token, (t) => {
      events++
      if (t > 0) samples.push({instance, t, ms: wallNow() - t})
    }))
  }
  parentPort.postMessage({opened: count})
  parentPort.on('message', (m) => {
    if (m === 'report') {
      parentPort.postMessage({samples, events})
      samples.length = 0
      events = 0
    }
    if (m === 'close') {
      for (const s of streams) s.close()
      parentPort.postMessage({closed: true})
    }
  })
} else {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`)
    return i < 0 ? fallback : process.argv[i + 1]
  }
  const databaseUrl = arg('database-url')
  const instances = Number(arg('instances', 1))
  const FEEDS = Number(arg('feeds', 1000))
  const RATE = Number(arg('rate', 100))
  const SECONDS = Number(arg('seconds', 10))
  const IDLE = Number(arg('idle', 10000))
  const BARE = process.argv.includes('--bare')
  if (BARE && (databaseUrl || instances > 1)) throw new Error('--bare is one bare fan-out process: no --database-url, no --instances')
  const WORKERS = 2
  const MAX_INFLIGHT = 32
  const log = (m) => process.stderr.write(`feeds-fanout: ${m}\n`)
  const servers = []
  /** Creates one record (the bare fan-out: posts its shape), whose event every feed receives. */
  let write, path, token
  if (BARE) {
    const bare = await startBare()
    servers.push(bare)
    write = bare.write
    path = bare.streamPath
    token = 'none'
  } else {
    const seeded = await seed(databaseUrl)
    for (let i = 0; i < instances; i++) servers.push(await serve(seeded))
    token = seeded.token
    const db = await request(servers[0].url, token, 'POST', '/svc/dbs.json', {db: {name: 'Live', code: 'live'}})
    path = `/svc/dbs/${db.id}/changes`
    write = (data) => request(servers[0].url, token, 'POST', `/svc/dbs/${db.id}/records.json`, {record: {data}})
  }
  const urls = servers.map((s) => s.url)
  const out = {machine: machine(), server: BARE ? 'bare fan-out' : 'svc', store: BARE ? null : databaseUrl ? 'pg' : 'sqlite', instances,
    feeds: FEEDS, rate: RATE, seconds: SECONDS, loadavg_start: loadavg().map((x) => +x.toFixed(2))}
  // Warm the server (first requests compile and open what they need).
  for (let i = 0; i < 20; i++) await write({t: 0, warm: i})
  await new Promise((r) => setTimeout(r, 1000))
  const before = servers.map((s) => rss(s.server.pid))

  const workers = []
  const start = async (count) => {
    const share = Math.ceil(count / WORKERS)
    const opened = []
    for (let w = 0; w < WORKERS; w++) {
      const worker = new Worker(new URL(import.meta.url), {workerData: {urls, path, token, count: Math.min(share, count - w * share)}})
      workers.push(worker)
      opened.push(new Promise((resolve, reject) => {
        worker.once('message', resolve)
        worker.once('error', reject)
      }))
    }
    await Promise.all(opened)
  }
  const ask = (m) => Promise.all(workers.map((w) => new Promise((resolve) => {
    w.once('message', resolve)
    w.postMessage(m)
  })))

  // 1. FEEDS feeds, RATE writes a second.
  let t0 = wallNow()
  await start(FEEDS)
  log(`${FEEDS} feeds open in ${((wallNow() - t0) / 1000).toFixed(1)} s`)
  await new Promise((r) => setTimeout(r, 2000))
  const withFeeds = servers.map((s) => rss(s.server.pid))
  out.memory_per_feed_bytes = Math.round(withFeeds.reduce((a, b, i) => a + b - before[i], 0) / FEEDS)
  await ask('report')
  const planned = RATE * SECONDS
  const cpuBefore = servers.map((s) => cpuMs(s.server.pid))
  t0 = wallNow()
  let sent = 0
  const inflight = new Set()
  /** Each write's own latency (send → answer): the part of change-to-event that is the write's. */
  const writeMs = []
  /** When each write was answered (by its send time): the change is committed by then. */
  const answeredAt = new Map()
  await new Promise((resolve) => {
    const timer = setInterval(() => {
      const due = Math.min(planned, Math.floor(((wallNow() - t0) / 1000) * RATE))
      // At most MAX_INFLIGHT writes waiting: a server that cannot keep up shows as a lower write rate, not as refused connections.
      while (sent < due && inflight.size < MAX_INFLIGHT) {
        const i = sent++
        const t = wallNow()
        const p = write({t, i, text: 'a change of a record'})
          .then(() => (answeredAt.set(t, wallNow()), writeMs.push(wallNow() - t)), (e) => log(e.message)).finally(() => inflight.delete(p))
        inflight.add(p)
      }
      if (sent >= planned || wallNow() - t0 > SECONDS * 3000) (clearInterval(timer), resolve())
    }, 5)
  })
  await Promise.all(inflight)
  const writes = sent
  const elapsed = (wallNow() - t0) / 1000
  await new Promise((r) => setTimeout(r, 2000))
  const reports = await ask('report')
  const all = reports.flatMap((r) => r.samples)
  // The servers' CPU time over the writes and their events (the 2 s after included): what an event costs whatever the machine's load.
  out.server_cpu_ms = servers.reduce((a, s, i) => a + cpuMs(s.server.pid) - cpuBefore[i], 0)
  out.writes_planned = planned
  out.writes = writes
  out.write_rate = +(writes / elapsed).toFixed(1)
  out.events = reports.reduce((a, r) => a + r.events, 0)
  out.events_expected = writes * FEEDS
  out.write_ms = summary(writeMs)
  out.change_to_event_ms = summary(all.map((s) => s.ms))
  // From the write's answer (its change committed before it) to the event: the feed's own delay, without the
  // write's queueing on a busy machine (negative: the event came before the answer).
  out.answer_to_event_ms = summary(all.filter((s) => answeredAt.has(s.t)).map((s) => s.t + s.ms - answeredAt.get(s.t)))
  out.server_cpu_us_per_event = out.events > 0 ? +((out.server_cpu_ms * 1000) / out.events).toFixed(2) : null
  if (instances > 1) {
    out.change_to_event_ms_same_instance = summary(all.filter((s) => s.instance === 0).map((s) => s.ms))
    out.change_to_event_ms_other_instance = summary(all.filter((s) => s.instance !== 0).map((s) => s.ms))
  }
  log(JSON.stringify(out))
  await ask('close')
  for (const w of workers.splice(0)) await w.terminate()
  await new Promise((r) => setTimeout(r, 2000))

  // 2. IDLE idle feeds.
  if (IDLE > 0) {
    const idleBefore = servers.map((s) => rss(s.server.pid))
    t0 = wallNow()
    await start(IDLE)
    out.idle_feeds = IDLE
    out.idle_open_seconds = +((wallNow() - t0) / 1000).toFixed(1)
    await new Promise((r) => setTimeout(r, 3000))
    out.idle_memory_per_feed_bytes = Math.round(servers.reduce((a, s, i) => a + rss(s.server.pid) - idleBefore[i], 0) / IDLE)
    await ask('report')
    await write({t: wallNow(), idle: true})
    let reached = 0
    for (let i = 0; i < 100 && reached < IDLE; i++) {
      await new Promise((r) => setTimeout(r, 200))
      reached += (await ask('report')).reduce((a, r) => a + r.events, 0)
    }
    out.idle_feeds_reached_by_a_write = reached
    await ask('close')
    for (const w of workers.splice(0)) await w.terminate()
  }
  out.loadavg_end = loadavg().map((x) => +x.toFixed(2))
  for (const s of servers) await s.stop()
  console.log(JSON.stringify(out, null, 2))
}
