import {statSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

describe('the command line surface of decisions.md', () => {
  const data = tempDir()
  const config = tempDir()
  const env = {SVC_CONFIG_DIR: config}
  let server: ServeProcess | undefined
  let token = ''

  afterAll(async () => {
    await server?.stop()
  })

  it('svc --help lists the topics', async () => {
    const r = await svc(['--help'])
    expect(r.code).toBe(0)
    for (const topic of ['admin', 'serve', 'login', 'whoami']) expect(r.stdout).toContain(topic)
  })

  it('admin account create prints {id, name}', async () => {
    const r = await svc(['admin', 'account', 'create', 'acme', '--data', data, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json).toEqual({id: 1, name: 'acme'})
  })

  it('admin user add prints the user with its token, once', async () => {
    const r = await svc(['admin', 'user', 'add', 'alice', '--data', data, '--role', 'admin', '--team', 'red', '--team', 'blue',
      '--department', 'north', '--permission', 'account', '--email', 'a@x.io', '--name', 'Alice', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json).toMatchObject({id: 1, login: 'alice', account_id: 1, team_ids: [1, 2], department_ids: [1]})
    expect(r.json.token).toMatch(/^[A-Za-z0-9_-]{43,}$/)
    token = r.json.token
  })

  it('admin user add validates and exits with the validation code', async () => {
    const r = await svc(['admin', 'user', 'add', 'bob', '--role', 'king', '--data', data, '--json'])
    expect(r.code).toBe(5)
    expect(r.json.error).toMatchObject({code: 'validation', details: {role: [expect.any(String)]}})
    expect(r.stdout).not.toContain(token)
  })

  it('admin module enable and disable answer the module list', async () => {
    let r = await svc(['admin', 'module', 'enable', 'crm', '--data', data, '--json'])
    expect(r.json).toMatchObject({account_id: 1, value: ['crm']})
    r = await svc(['admin', 'module', 'enable', 'toolkit', '--data', data, '--account', '1', '--json'])
    expect(r.json.value).toEqual(['crm', 'toolkit'])
    r = await svc(['admin', 'module', 'disable', 'crm', '--data', data, '--json'])
    expect(r.json.value).toEqual(['toolkit'])
    r = await svc(['admin', 'module', 'enable', 'crm', '--data', data, '--account', '99', '--json'])
    expect(r.code).toBe(4)
  })

  it('serve prints one Listening line; a request with the token answers 200, without it 401', async () => {
    server = await svcServe(data)
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const ok = await fetch(`${server.url}/svc/me.json`, {headers: {authorization: `Bearer ${token}`}})
    expect(ok.status).toBe(200)
    const me = await ok.json()
    expect(me).toMatchObject({login: 'alice', team_names: ['red', 'blue'], department_names: ['north'], account: {modules: ['toolkit']}})
    expect(JSON.stringify(me)).not.toContain(token)
    const anon = await fetch(`${server.url}/svc/me.json`)
    expect(anon.status).toBe(401)
    expect(anon.headers.get('www-authenticate')).toBe('Bearer')
  })

  it('whoami works remote and embedded (while the server holds the same data dir), naming the target on stderr', async () => {
    const remote = await svc(['whoami', '--url', server!.url, '--token', token])
    expect(remote.code, remote.stderr).toBe(0)
    expect(remote.stdout).toContain('alice (admin)')
    expect(remote.stderr).toContain(`remote: ${server!.url}`)
    const local = await svc(['whoami', '--data', data])
    expect(local.code, local.stderr).toBe(0)
    expect(local.stderr).toMatch(/local: .* as alice/)
    const json = await svc(['whoami', '--data', data, '--json'])
    expect(json.stderr).toBe('')
    expect(json.json).toMatchObject({login: 'alice'})
  })

  it('env vars stand for the flags', async () => {
    const r = await svc(['whoami', '--json'], {env: {SVC_URL: server!.url, SVC_TOKEN: token}})
    expect(r.json).toMatchObject({login: 'alice'})
  })

  it('a bad token exits with the auth code and never echoes the token', async () => {
    const r = await svc(['whoami', '--url', server!.url, '--token', 'wrong-token-value'])
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('unauthorized')
    expect(r.stderr + r.stdout).not.toContain('wrong-token-value')
  })

  it('an unreachable server exits with the network code', async () => {
    const r = await svc(['whoami', '--url', 'http://127.0.0.1:1', '--token', 'x'])
    expect(r.code).toBe(6)
    expect(r.stderr).toContain('cannot reach')
  })

  it('login saves a profile with the token in a file only the user can read; use, list and logout', async () => {
    let r = await svc(['login', '--url', server!.url, '--token', token, '--name', 'dev'], {env})
    expect(r.code, r.stderr).toBe(0)
    expect((statSync(join(config, 'credentials.json')).mode & 0o777).toString(8)).toBe('600')
    r = await svc(['login', '--data', data, '--name', 'local'], {env})
    expect(r.code, r.stderr).toBe(0)
    r = await svc(['profile', 'list', '--json'], {env})
    expect(r.json).toEqual(expect.arrayContaining([
      expect.objectContaining({name: 'dev', current: false, target: `remote: ${server!.url}`}),
      expect.objectContaining({name: 'local', current: true}),
    ]))
    expect(r.stdout).not.toContain(token)
    r = await svc(['profile', 'use', 'dev'], {env})
    expect(r.code).toBe(0)
    r = await svc(['whoami'], {env})
    expect(r.stderr).toContain(`remote: ${server!.url}`)
    r = await svc(['whoami', '--profile', 'local'], {env})
    expect(r.stderr).toContain('local:')
    r = await svc(['logout', '--name', 'dev'], {env})
    expect(r.code).toBe(0)
    r = await svc(['profile', 'use', 'dev'], {env})
    expect(r.code).toBe(4)
  })

  it('login refuses a wrong token without saving it', async () => {
    const r = await svc(['login', '--url', server!.url, '--token', 'nope', '--name', 'bad'], {env})
    expect(r.code).toBe(3)
    const list = await svc(['profile', 'list', '--json'], {env})
    expect(list.json.map((p: {name: string}) => p.name)).not.toContain('bad')
  })

  it('SIGTERM lets the server finish and close the database cleanly', async () => {
    const code = await server!.stop('SIGTERM')
    expect(code).toBe(0)
    // A clean close checkpoints the WAL away.
    expect(() => statSync(join(data, 'svc.sqlite-wal'))).toThrow()
    server = undefined
  })
})

describe('usage errors', () => {
  it('an unknown flag exits with the usage code', async () => {
    const r = await svc(['whoami', '--nope'])
    expect(r.code).toBe(2)
  })

  it('an empty data dir tells how to create a user', async () => {
    const r = await svc(['whoami', '--data', tempDir()])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('svc admin user add')
  })
})

describe('an account never sees another account', () => {
  const data = tempDir()
  let server: ServeProcess | undefined
  beforeAll(async () => {
    await svc(['admin', 'account', 'create', 'one', '--data', data])
    await svc(['admin', 'account', 'create', 'two', '--data', data])
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('modules and users stay in their account', async () => {
    const a = (await svc(['admin', 'user', 'add', 'ann', '--account', '1', '--role', 'admin', '--data', data, '--json'])).json
    const b = (await svc(['admin', 'user', 'add', 'ann', '--account', '2', '--role', 'admin', '--data', data, '--json'])).json
    expect(a.id).not.toBe(b.id)
    await svc(['admin', 'module', 'enable', 'crm', '--account', '2', '--data', data])
    server = await svcServe(data)
    const meA = await (await fetch(`${server.url}/svc/me.json`, {headers: {authorization: `Bearer ${a.token}`}})).json()
    const meB = await (await fetch(`${server.url}/svc/me.json`, {headers: {authorization: `Bearer ${b.token}`}})).json()
    expect(meA.account).toMatchObject({id: 1, modules: []})
    expect(meB.account).toMatchObject({id: 2, modules: ['crm']})
  })
})
