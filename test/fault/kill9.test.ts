// kill -9 of `svc serve` in the middle of a stream of creates: every create the server
// acknowledged (201) survives the restart, and the SQLite file passes `PRAGMA integrity_check`.
import Database from 'better-sqlite3'
import {join} from 'node:path'
import {afterAll, expect, it} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'
import {pg} from '../helpers/pg.js'

// Store-specific: kill -9 of a server over SQLite, skipped in the PostgreSQL half (PostgreSQL counterparts: killing an instance in test/cluster/instances.test.ts, restarting PostgreSQL in test/fault/pg-restart.test.ts).

let server: ServeProcess | undefined
afterAll(async () => {
  await server?.stop()
})

it.skipIf(pg)('every acknowledged record survives kill -9 and the database file is intact', async () => {
  const data = tempDir()
  const admin = (await svc(['admin', 'user', 'add', 'root', '--role', 'admin', '--data', data, '--json'])).json
  const headers = {authorization: `Bearer ${admin.token}`, 'content-type': 'application/json'}
  server = await svcServe(data, ['--quiet'])
  const url = server.url
  const db = await (await fetch(`${url}/svc/dbs.json`, {
    method: 'POST', headers, body: JSON.stringify({db: {name: 'Orders', code: 'orders', schema: {fields: {n: 'integer', note: 'text'}}}}),
  })).json()
  expect(db.id).toBeTruthy()

  const acknowledged = new Map<number, number>()
  let sent = 0
  let killed = false
  const writer = async () => {
    while (!killed) {
      const n = sent++
      try {
        const res = await fetch(`${url}/svc/dbs/${db.id}/records.json`, {
          method: 'POST', headers, body: JSON.stringify({record: {data: {n, note: `note ${n} `.repeat(20)}}}),
        })
        if (res.status !== 201) continue
        const body = await res.json()
        acknowledged.set(body.id, n)
      } catch {
        // The connection died with the server: this create was never acknowledged.
      }
    }
  }
  const writers = Array.from({length: 8}, writer)
  while (acknowledged.size < 300) await new Promise((r) => setTimeout(r, 5))
  server.child.kill('SIGKILL')
  // The writers go on for a moment: their next creates meet a dead server and are never acknowledged.
  await new Promise((r) => setTimeout(r, 200))
  killed = true
  await Promise.all(writers)
  await new Promise((r) => server!.child.exitCode !== null || server!.child.signalCode ? r(null) : server!.child.once('exit', r))
  expect(sent).toBeGreaterThan(acknowledged.size)

  // The file as the crash left it (WAL not checkpointed): integrity first, then every record.
  const file = new Database(join(data, 'svc.sqlite'))
  expect(file.pragma('integrity_check', {simple: true})).toBe('ok')
  file.close()

  server = await svcServe(data, ['--quiet'])
  const seen = new Map<number, number>()
  for (let offset = 0; ; offset += 100) {
    const res = await fetch(`${server.url}/svc/dbs/${db.id}/records.json?limit=100&offset=${offset}`, {headers})
    expect(res.status).toBe(200)
    const page: {id: number; data: {n: number}}[] = await res.json()
    for (const r of page) seen.set(r.id, r.data.n)
    if (page.length < 100) break
  }
  for (const [id, n] of acknowledged) expect(seen.get(id), `acknowledged record ${id} (n=${n})`).toBe(n)
  // A write after the restart is acknowledged as usual.
  const after = await fetch(`${server.url}/svc/dbs/${db.id}/records.json`, {method: 'POST', headers, body: JSON.stringify({record: {data: {n: -1}}})})
  expect(after.status).toBe(201)
}, 120_000)
