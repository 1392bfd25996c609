// N instances, proven: three `svc serve --database-url` processes over one PostgreSQL database,
// behind a round-robin balancer (a few lines of node:http below). Runs in the PostgreSQL half only
// (`npm run test:pg`, `.ci/run`); it needs the built dist/ like every test that spawns svc.
import {request as httpRequest, Agent, createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svcServe, type ServeProcess} from '../helpers/cli.js'
import {createTestDatabase, pg, rawQuery, seedAdminToken} from '../helpers/pg.js'
import {tempDir} from '../helpers/world.js'

/**
 * Round-robin over `upstreams`; a connection refused (the request never reached it) goes to the
 * next one. A new upstream connection per request: a kept-alive one that the instance closes as
 * idle would fail a request it never saw (nginx and Caddy retry those; this sketch doesn't).
 */
function balancer(upstreams: string[]): Promise<{url: string; server: Server}> {
  const agent = new Agent({keepAlive: false})
  let next = 0
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      // On a refused connection, the next upstream after the one that refused (not the shared counter's).
      const attempt = (index: number, tries: number) => {
        const target = new URL(upstreams[index % upstreams.length]!)
        const up = httpRequest({agent, host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers}, (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers)
          upRes.pipe(res)
        })
        up.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code === 'ECONNREFUSED' && tries < upstreams.length) return attempt(index + 1, tries + 1)
          if (!res.headersSent) res.writeHead(502).end()
          else res.destroy()
        })
        up.end(body)
      }
      attempt(next++, 1)
    })
  })
  // Longer than any pause of a loaded test process: the client never reuses a socket the balancer just closed.
  server.keepAliveTimeout = 120_000
  server.headersTimeout = 130_000
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server})))
}

describe.runIf(pg)('three instances over one PostgreSQL database behind a balancer', () => {
  const instances: ServeProcess[] = []
  let lb: {url: string; server: Server}
  let drop: () => Promise<void>
  let databaseUrl = ''
  let token = ''
  const dataDirs = [tempDir(), tempDir(), tempDir()]

  const call = async (base: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method, headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'}, body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    return {status: res.status, text, json: text ? JSON.parse(text) : undefined}
  }

  beforeAll(async () => {
    const database = await createTestDatabase()
    databaseUrl = database.url
    drop = database.drop
    token = await seedAdminToken(dataDirs[0]!, databaseUrl)
    // A fast scheduler tick (test hook) and --cron-seconds, so a per-second cron shows many occurrences in a few seconds.
    instances.push(...(await Promise.all(dataDirs.map((dir) =>
      svcServe(dir, ['--database-url', databaseUrl, '--quiet', '--cron-seconds'], {env: {SVC_SCHEDULER_TICK_MS: '100'}, timeoutMs: 90_000})))))
    lb = await balancer(instances.map((i) => i.url))
  }, 120_000)

  afterAll(async () => {
    lb?.server.closeAllConnections()
    lb?.server.close()
    await Promise.all(instances.map((i) => i.stop()))
    await drop?.()
  })

  it('a per-second cron fires exactly once per occurrence across the three', async () => {
    expect((await call(lb.url, 'POST', '/svc/resources.json', {resource: {kind: 'svc/custom_flow', code: 'tick', name: 'Tick', fields: {program: [{type: 'mutation', set: {ok: true}}]}}})).status).toBe(201)
    // From before the cron exists to after its pause is answered: every occurrence it can have falls in
    // there (taken after the create's answer, a loaded machine's slow answer could hide one from the bound).
    const from = Date.now()
    const cron = await call(lb.url, 'POST', '/account/crons.json', {cron: {kind: 'flow', target_code: 'tick', schedule: '* * * * * *', active: true}})
    expect(cron.status, cron.text).toBe(201)
    await new Promise((r) => setTimeout(r, 4500))
    expect((await call(lb.url, 'PATCH', `/account/crons/${cron.json.id}.json`, {cron: {active: false}})).status).toBe(200)
    const seconds = (Date.now() - from) / 1000
    await new Promise((r) => setTimeout(r, 500)) // a tick that claimed just before the pause finishes starting
    const runs = (await call(lb.url, 'GET', `/connect/flow_processes.json?cron_id=${cron.json.id}&limit=100`)).json as {id: string; input: unknown}[]
    // Never more runs than occurrences (one a second): three schedulers each starting it would triple that.
    expect(runs.length).toBeGreaterThanOrEqual(2)
    expect(runs.length).toBeLessThanOrEqual(Math.floor(seconds) + 1)
    for (const run of runs) expect(run.input).toEqual({kind: 'cron', cron_id: cron.json.id})
  })

  it('a schema changed through one instance is enforced by all three at once', async () => {
    const db = await call(instances[0]!.url, 'POST', '/svc/dbs.json', {db: {name: 'Shared', code: 'shared', schema: {fields: {n: 'integer'}}}})
    expect(db.status, db.text).toBe(201)
    // Each instance reads (and caches) the database: strings are refused as `n`.
    for (const i of instances) {
      expect((await call(i.url, 'POST', '/svc/dbs/shared/records.json', {record: {data: {n: 1}}})).status).toBe(201)
      expect((await call(i.url, 'POST', '/svc/dbs/shared/records.json', {record: {data: {n: 'x'}}})).status).toBe(422)
    }
    const changed = await call(instances[1]!.url, 'PATCH', `/svc/dbs/${db.json.id}.json`, {db: {schema: {fields: {n: 'string', label: {type: 'string', required: true}}}}})
    expect(changed.status, changed.text).toBe(200)
    for (const i of instances) {
      const missing = await call(i.url, 'POST', '/svc/dbs/shared/records.json', {record: {data: {n: 'x'}}})
      expect(missing.status, `${i.url}: ${missing.text}`).toBe(422)
      expect(missing.json).toEqual({label: ['is required']})
      expect((await call(i.url, 'POST', '/svc/dbs/shared/records.json', {record: {data: {n: 'x', label: 'y'}}})).status).toBe(201)
    }
  })

  it('10,000 creates spread over the three are all present', async () => {
    const db = (await call(lb.url, 'POST', '/svc/dbs.json', {db: {name: 'Many', code: 'many', schema: {fields: {n: 'integer'}, indexed_fields: ['n']}}})).json
    const ids = new Set<number>()
    let n = 0
    const started = Date.now()
    const worker = async () => {
      while (n < 10_000) {
        const mine = n++
        const r = await call(lb.url, 'POST', `/svc/dbs/${db.id}/records.json`, {record: {data: {n: mine}}})
        expect(r.status, r.text).toBe(201)
        ids.add(r.json.id)
      }
    }
    await Promise.all(Array.from({length: 32}, worker))
    console.log(`10,000 creates through the balancer in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    expect(ids.size).toBe(10_000)
    const rows = await rawQuery({dataDir: dataDirs[0]!, databaseUrl}, 'SELECT id FROM db_records WHERE db_id = ?', [db.id])
    expect(new Set(rows.map((r) => Number(r.id)))).toEqual(ids)
    // Every instance took its share (round-robin), and every one sees them all.
    for (const i of instances) {
      const page = await call(i.url, 'GET', `/svc/dbs/${db.id}/records.json?limit=1&filter[n]=9999`)
      expect(page.json).toHaveLength(1)
    }
  }, 900_000)

  it('killing one instance loses no acknowledged write, and the other two keep serving', async () => {
    const db = (await call(lb.url, 'POST', '/svc/dbs.json', {db: {name: 'Killed', code: 'killed', schema: {fields: {n: 'integer'}}}})).json
    const acknowledged = new Set<number>()
    let n = 0
    let stop = false
    const worker = async () => {
      while (!stop) {
        const mine = n++
        try {
          const r = await call(lb.url, 'POST', `/svc/dbs/${db.id}/records.json`, {record: {data: {n: mine}}})
          if (r.status === 201) acknowledged.add(r.json.id)
        } catch {
          // The connection died with the instance: never acknowledged.
        }
      }
    }
    const writers = Array.from({length: 16}, worker)
    while (acknowledged.size < 100) await new Promise((r) => setTimeout(r, 20))
    const victim = instances[2]!
    victim.child.kill('SIGKILL')
    await new Promise((r) => (victim.child.exitCode !== null || victim.child.signalCode ? r(null) : victim.child.once('exit', r)))
    const atKill = acknowledged.size
    while (acknowledged.size < atKill + 100) await new Promise((r) => setTimeout(r, 20))
    stop = true
    await Promise.all(writers)
    // After the kill the two others served every create the balancer sent them.
    const after = await Promise.all(Array.from({length: 20}, (_, k) => call(lb.url, 'POST', `/svc/dbs/${db.id}/records.json`, {record: {data: {n: -k}}})))
    expect(after.map((r) => r.status)).toEqual(Array(20).fill(201))
    for (const r of after) acknowledged.add(r.json.id)
    const stored = new Set((await rawQuery({dataDir: dataDirs[0]!, databaseUrl}, 'SELECT id FROM db_records WHERE db_id = ?', [db.id])).map((r) => Number(r.id)))
    for (const id of acknowledged) expect(stored.has(id), `acknowledged record ${id} is missing`).toBe(true)
  }, 120_000)
})
