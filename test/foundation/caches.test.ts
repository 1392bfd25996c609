// The server keeps callers and databases in read caches keyed by the cache epoch (src/store/sqlite/connection.ts).
// These tests change those rows from ANOTHER process while a server runs, after the server has
// cached them, and prove the very next request sees the change.
import Database from 'better-sqlite3'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'
import {pg} from '../helpers/pg.js'

// Store-specific: another process writes the SQLite file, skipped in the PostgreSQL half (PostgreSQL counterpart: changes through one instance enforced by the others in test/cluster/instances.test.ts).

describe.skipIf(pg)('read caches of a running server follow changes made by other processes', () => {
  const data = tempDir()
  let server: ServeProcess
  let admin: {token: string; id: number}
  let alice: {token: string; id: number}

  const call = async (token: string, path: string, init: RequestInit = {}) => {
    const res = await fetch(server.url + path, {...init, headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'}})
    return {status: res.status, body: await res.json().catch(() => null)}
  }
  /** Another process writing the data file directly (as an admin tool or a second server would). */
  const sqlite = (fn: (db: Database.Database) => void) => {
    const db = new Database(join(data, 'svc.sqlite'))
    try {
      db.pragma('busy_timeout = 5000')
      fn(db)
    } finally {
      db.close()
    }
  }

  beforeAll(async () => {
    admin = (await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])).json
    alice = (await svc(['admin', 'user', 'add', 'alice', '--data', data, '--json'])).json
    server = await svcServe(data, ['--quiet'])
  })

  afterAll(async () => {
    await server?.stop()
  })

  it('a token deleted by another process is refused at the next request', async () => {
    expect((await call(alice.token, '/svc/me.json')).status).toBe(200)
    expect((await call(alice.token, '/svc/me.json')).status).toBe(200)
    sqlite((db) => db.prepare('DELETE FROM tokens WHERE user_id = ?').run(alice.id))
    expect((await call(alice.token, '/svc/me.json')).status).toBe(401)
  })

  it('a role taken away by another process applies at the next request', async () => {
    const setField = '/account/set_field.json?key=account.settings.modules&action_type=add&value=m1'
    expect((await call(admin.token, setField, {method: 'POST'})).status).toBe(200)
    sqlite((db) => db.prepare("UPDATE users SET role = 'user' WHERE id = ?").run(admin.id))
    expect((await call(admin.token, setField, {method: 'POST'})).status).toBe(403)
    sqlite((db) => db.prepare("UPDATE users SET role = 'admin' WHERE id = ?").run(admin.id))
    expect((await call(admin.token, setField, {method: 'POST'})).status).toBe(200)
  })

  it('a schema changed by the embedded CLI applies to the next record write on the server', async () => {
    let r = await call(admin.token, '/svc/dbs.json', {method: 'POST', body: JSON.stringify({db: {name: 'Cached', code: 'cached', schema: {fields: {n: 'integer'}}}})})
    expect(r.status, JSON.stringify(r.body)).toBe(201)
    const create = (n: unknown) => call(admin.token, '/svc/dbs/cached/records.json', {method: 'POST', body: JSON.stringify({record: {data: {n}}})})
    expect((await create('x')).status).toBe(422)
    expect((await create(1)).status).toBe(201)
    const cli = await svc(['db', 'replace', 'cached', '--field', 'schema', '--old', '"integer"', '--new', '"string"', '--data', data, '--json'])
    expect(cli.code, cli.stderr).toBe(0)
    r = await create('x')
    expect(r.status, JSON.stringify(r.body)).toBe(201)
    expect(r.body.data).toEqual({n: 'x'})
  })

  it('a database deleted by the embedded CLI is gone for the server at once', async () => {
    expect((await call(admin.token, '/svc/dbs/cached/records.json')).status).toBe(200)
    const cli = await svc(['db', 'delete', 'cached', '--data', data, '--yes'])
    expect(cli.code, cli.stderr).toBe(0)
    expect((await call(admin.token, '/svc/dbs/cached/records.json')).status).toBe(404)
  })
})
