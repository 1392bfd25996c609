// PostgreSQL restarting under load (the PostgreSQL counterpart of kill9.test.ts): while the
// database is away, writes answer 503 with Retry-After (never a 500, never a crash); when it is
// back, the same `svc serve` serves again without a restart; no acknowledged write is lost.
// The test stops and starts a cluster of its own (scripts/pg-test-cluster.sh), never the shared one.
import {execFile, execFileSync} from 'node:child_process'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {fileURLToPath} from 'node:url'
import {afterAll, expect, it} from 'vitest'
import {svcServe, type ServeProcess} from '../helpers/cli.js'
import {pg, rawQuery, seedAdminToken} from '../helpers/pg.js'
import {tempDir} from '../helpers/world.js'

const SCRIPT = join(fileURLToPath(new URL('../..', import.meta.url)), 'scripts', 'pg-test-cluster.sh')
// Right under the temp folder: the cluster's owner (postgres) cannot enter mkdtemp's private folders.
const clusterDir = join(tmpdir(), `svc-pg-restart-${process.pid}-${Date.now()}`)
const clusterEnv = {...process.env, SVC_PG_TEST_DIR: clusterDir}
const cluster = (command: string) => execFileSync(SCRIPT, [command], {env: clusterEnv, encoding: 'utf8'}).trim()
/** Under load, never block the event loop (the writers' sockets would sit unread past svc's keep-alive timeout). */
const clusterAsync = (command: string) => promisify(execFile)(SCRIPT, [command], {env: clusterEnv})

let server: ServeProcess | undefined
afterAll(async () => {
  await server?.stop()
  if (pg) cluster('stop')
})

it.runIf(pg)('a restart of PostgreSQL under load: 503 with Retry-After meanwhile, then service again, no acknowledged write lost', async () => {
  const databaseUrl = cluster('start')
  const dataDir = tempDir()
  const token = await seedAdminToken(dataDir, databaseUrl)
  server = await svcServe(dataDir, ['--database-url', databaseUrl, '--quiet'])
  const headers = {authorization: `Bearer ${token}`, 'content-type': 'application/json'}
  const db = await (await fetch(`${server.url}/svc/dbs.json`, {method: 'POST', headers, body: JSON.stringify({db: {name: 'R', code: 'r', schema: {fields: {n: 'integer'}}}})})).json()

  const acknowledged = new Set<number>()
  const statuses = new Map<number, number>()
  const retryAfter = new Set<string | null>()
  let phase: 'before' | 'down' | 'after' = 'before'
  let okAfter = 0
  let n = 0
  let stop = false
  const worker = async () => {
    while (!stop) {
      const res = await fetch(`${server!.url}/svc/dbs/${db.id}/records.json`, {method: 'POST', headers, body: JSON.stringify({record: {data: {n: n++}}})})
      const body = await res.json()
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      if (res.status === 201) {
        acknowledged.add(body.id)
        if (phase === 'after') okAfter++
      } else if (res.status === 503) {
        retryAfter.add(res.headers.get('retry-after'))
        await new Promise((r) => setTimeout(r, 50))
      }
    }
  }
  const writers = Array.from({length: 8}, worker)
  while (acknowledged.size < 200) await new Promise((r) => setTimeout(r, 20))
  phase = 'down'
  await clusterAsync('down')
  while ((statuses.get(503) ?? 0) < 10) await new Promise((r) => setTimeout(r, 20))
  await clusterAsync('up')
  phase = 'after'
  for (let i = 0; i < 600 && okAfter < 200; i++) await new Promise((r) => setTimeout(r, 50))
  stop = true
  await Promise.all(writers)

  expect(okAfter, `statuses: ${JSON.stringify([...statuses])}`).toBeGreaterThanOrEqual(200) // serving again, same process
  expect([...statuses.keys()].sort()).toEqual([201, 503]) // nothing else: no 500
  expect([...retryAfter].every((v) => v !== null && Number(v) >= 1)).toBe(true)
  expect(server.child.exitCode).toBeNull()
  const stored = new Set((await rawQuery({dataDir, databaseUrl}, 'SELECT id FROM db_records WHERE db_id = ?', [db.id])).map((r) => Number(r.id)))
  for (const id of acknowledged) expect(stored.has(id), `acknowledged record ${id} is missing`).toBe(true)
}, 90_000)
