// The CLI over PostgreSQL (PostgreSQL only): `svc admin … --database-url`, `svc serve` with
// SVC_DATABASE_URL, and the embedded backend and the `prompt render` fast path with a database
// URL — which never read or create the data dir's SQLite file.
import {existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {createTestDatabase, pg} from '../helpers/pg.js'
import {tempDir} from '../helpers/world.js'

describe.runIf(pg)('svc on PostgreSQL', () => {
  const data = tempDir()
  const files = tempDir()
  let url = ''
  let drop: (() => Promise<void>) | undefined
  let token = ''
  const servers: ServeProcess[] = []

  beforeAll(async () => {
    const db = await createTestDatabase()
    url = db.url
    drop = db.drop
    const r = await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--database-url', url, '--json'])
    expect(r.code, r.stderr).toBe(0)
    token = r.json.token
  })

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()))
    await drop?.()
  })

  it('admin commands take --database-url; a URL that is not PostgreSQL is a usage error', async () => {
    const r = await svc(['admin', 'account', 'list', '--database-url', url, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json.map((a: {name: string}) => a.name)).toEqual(['default'])
    expect(r.stderr).not.toContain(new URL(url).password || '\0')
    const bad = await svc(['admin', 'account', 'list', '--database-url', 'mysql://localhost/x'])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain('postgres://')
  })

  it('two servers over one database serve what the embedded CLI wrote; the fast path reads the database, not a SQLite file', async () => {
    writeFileSync(join(files, 'greet.md'), 'Hello {{ who }}')
    let r = await svc(['prompt', 'create', '--code', 'greet', '--name', 'Greet', '--content-file', join(files, 'greet.md'), '--data', data, '--json'],
      {env: {SVC_DATABASE_URL: url}})
    expect(r.code, r.stderr).toBe(0)
    for (const env of [{}, {SVC_NO_FASTPATH: '1'}]) {
      r = await svc(['prompt', 'render', 'greet', '--var', 'who=Ada', '--data', data], {env: {...env, SVC_DATABASE_URL: url}, process: true})
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toBe('Hello Ada')
    }
    expect(existsSync(join(data, 'svc.sqlite'))).toBe(false)
    servers.push(await svcServe(data, [], {env: {SVC_DATABASE_URL: url}}), await svcServe(data, ['--database-url', url]))
    for (const server of servers) {
      const res = await fetch(`${server.url}/svc/prompt/greet.md?who=Bo`, {headers: {authorization: `Bearer ${token}`}})
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('Hello Bo')
    }
    expect(existsSync(join(data, 'svc.sqlite'))).toBe(false)
  }, 180_000) // four CLI processes and two servers: slow on a loaded machine, never timed
})
