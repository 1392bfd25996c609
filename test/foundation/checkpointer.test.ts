// `svc serve` checkpoints the WAL in a worker thread (src/store/sqlite/checkpointer.ts): committed records
// reach the database file itself while the server runs, without a commit having to checkpoint.
// Observed from outside: a copy of svc.sqlite alone (no -wal) holds the records. Without the
// checkpointer the WAL would keep them until ~40 MB of writes or the server's exit.
import Database from 'better-sqlite3'
import {copyFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, expect, it} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'
import {pg} from '../helpers/pg.js'

// Store-specific: the SQLite WAL checkpointer, skipped in the PostgreSQL half.

let server: ServeProcess | undefined
afterAll(async () => {
  await server?.stop()
})

/** Records in the database file alone, as a copy without its WAL shows them (null while the copy is torn). */
function recordsInMainFile(data: string): number | null {
  const copy = join(tempDir(), 'main-only.sqlite')
  copyFileSync(join(data, 'svc.sqlite'), copy)
  try {
    const db = new Database(copy, {readonly: true})
    try {
      return (db.prepare('SELECT count(*) AS n FROM db_records').get() as {n: number}).n
    } finally {
      db.close()
    }
  } catch {
    return null
  }
}

it.skipIf(pg)('records created over HTTP reach the database file while the server runs', async () => {
  const data = tempDir()
  const admin = (await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])).json
  expect((await svc(['db', 'create', 'Notes', '--code', 'notes', '--data', data, '--json'])).code).toBe(0)
  server = await svcServe(data, ['--quiet'])
  const created = await Promise.all(Array.from({length: 50}, (_, i) => fetch(`${server!.url}/svc/dbs/notes/records.json`, {
    method: 'POST',
    headers: {authorization: `Bearer ${admin.token}`, 'content-type': 'application/json'},
    body: JSON.stringify({record: {data: {i}}}),
  })))
  expect(created.map((r) => r.status)).toEqual(Array(50).fill(201))
  let inFile: number | null = null
  for (let attempt = 0; attempt < 600 && inFile !== 50; attempt++) { // up to a minute: a loaded machine
    await new Promise((r) => setTimeout(r, 100))
    inFile = recordsInMainFile(data)
  }
  expect(inFile).toBe(50)
})
