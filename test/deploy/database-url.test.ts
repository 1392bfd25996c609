// Forgetting the database URL is not silent (issue 25 item 4): a data dir that servers use with a
// PostgreSQL database (`svc serve --database-url` records it in DIR/database.json, without the
// password) refuses to grow a SQLite file unless --database-url or --sqlite is given; and a
// target flag on the command line wins over the saved profile.
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {createTestDatabase, pg} from '../helpers/pg.js'
import {tempDir} from '../helpers/world.js'

describe('a data dir recorded as a PostgreSQL server\'s (database.json)', () => {
  const data = tempDir()
  beforeAll(() => {
    // What `svc serve --database-url postgres://svc:…@db.internal:5432/svc` leaves there (the PostgreSQL half checks that).
    writeFileSync(join(data, 'database.json'), JSON.stringify({driver: 'postgresql', database: 'db.internal:5432/svc'}))
  })

  it('admin commands without a database URL refuse, naming the database and both ways out, and create nothing', async () => {
    for (const args of [['admin', 'user', 'add', 'bob'], ['admin', 'account', 'create', 'acme'], ['admin', 'user', 'list']]) {
      const r = await svc([...args, '--data', data])
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toContain('db.internal:5432/svc')
      expect(r.stderr).toContain('--database-url')
      expect(r.stderr).toContain('--sqlite')
      expect(existsSync(join(data, 'svc.sqlite'))).toBe(false)
    }
  })

  it('svc serve and backend commands refuse too', async () => {
    const serve = await svc(['serve', '--port', '0', '--data', data])
    expect(serve.code, serve.stderr).toBe(2)
    expect(serve.stderr).toContain('db.internal:5432/svc')
    const list = await svc(['db', 'list', '--data', data])
    expect(list.code, list.stderr).toBe(2)
    expect(list.stderr).toContain('--database-url')
    expect(existsSync(join(data, 'svc.sqlite'))).toBe(false)
  }, 120_000)

  it('--sqlite says a SQLite database is meant; --sqlite with --database-url is a usage error', async () => {
    const both = await svc(['admin', 'user', 'add', 'bob', '--data', data, '--sqlite', '--database-url', 'postgres://u:p@127.0.0.1:9/x'])
    expect(both.code).toBe(2)
    expect(existsSync(join(data, 'svc.sqlite'))).toBe(false)
    const r = await svc(['admin', 'user', 'add', 'bob', '--data', data, '--sqlite', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json.login).toBe('bob')
    expect(existsSync(join(data, 'svc.sqlite'))).toBe(true)
    // Once the file is there, it is used as any data dir's.
    const list = await svc(['admin', 'user', 'list', '--data', data, '--json'])
    expect(list.code, list.stderr).toBe(0)
    expect(list.json.map((u: {login: string}) => u.login)).toEqual(['bob'])
  })
})

describe.runIf(pg)('svc serve --database-url and the data dir (PostgreSQL)', () => {
  const data = tempDir()
  const config = tempDir()
  let url = ''
  let drop: (() => Promise<void>) | undefined
  const servers: ServeProcess[] = []

  beforeAll(async () => {
    const db = await createTestDatabase()
    url = db.url
    drop = db.drop
  })
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()))
    await drop?.()
  })

  it('records the database in the data dir without its user or password', async () => {
    const server = await svcServe(data, ['--database-url', url])
    await server.stop()
    const text = readFileSync(join(data, 'database.json'), 'utf8')
    const u = new URL(url)
    expect(JSON.parse(text)).toEqual({driver: 'postgresql', database: `${u.host}${u.pathname}`})
    if (u.password) expect(text).not.toContain(u.password)
    if (u.username) expect(text).not.toContain(`${u.username}@`)
    expect(existsSync(join(data, 'svc.sqlite'))).toBe(false)
  }, 120_000)

  it('an admin command given that dir without the URL refuses; with it, its token works on the server', async () => {
    const forgot = await svc(['admin', 'user', 'add', 'bob', '--data', data])
    expect(forgot.code, forgot.stderr).toBe(2)
    expect(forgot.stderr).toContain('--database-url')
    expect(existsSync(join(data, 'svc.sqlite'))).toBe(false)
    const r = await svc(['admin', 'user', 'add', 'bob', '--role', 'admin', '--data', data, '--json'], {env: {SVC_DATABASE_URL: url}})
    expect(r.code, r.stderr).toBe(0)
    const server = await svcServe(data, ['--database-url', url])
    servers.push(server)
    const me = await fetch(`${server.url}/svc/me.json`, {headers: {authorization: `Bearer ${r.json.token}`}})
    expect(me.status).toBe(200)
  }, 120_000)

  it('--database-url on the command line wins over a saved remote profile', async () => {
    const created = await svc(['db', 'create', 'Only in PostgreSQL', '--code', 'pgonly', '--data', data, '--database-url', url, '--json'])
    expect(created.code, created.stderr).toBe(0)
    // A saved remote profile (the current one) that points at another server, on SQLite.
    const other = tempDir()
    const admin = await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', other, '--json'])
    const remote = await svcServe(other)
    servers.push(remote)
    const login = await svc(['login', '--url', remote.url, '--token', admin.json.token, '--name', 'prod'], {env: {SVC_CONFIG_DIR: config}})
    expect(login.code, login.stderr).toBe(0)
    const env = {SVC_CONFIG_DIR: config}
    const viaProfile = await svc(['db', 'list', '--json'], {env})
    expect(viaProfile.code, viaProfile.stderr).toBe(0)
    expect(viaProfile.json.map((d: {code: string}) => d.code)).not.toContain('pgonly')
    const viaFlag = await svc(['db', 'list', '--database-url', url, '--json'], {env})
    expect(viaFlag.code, viaFlag.stderr).toBe(0)
    expect(viaFlag.json.map((d: {code: string}) => d.code)).toContain('pgonly')
    // A profile named on the command line and a database URL are two targets: a usage error.
    const both = await svc(['db', 'list', '--profile', 'prod', '--database-url', url], {env})
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('prod')
  }, 120_000)
})
