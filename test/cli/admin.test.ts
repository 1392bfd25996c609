// Issue 19 item 1: admin commands act on a local data dir, refuse a remote profile with a clear
// message, print the target; `admin user list` and `admin user token` (new token, old revoked).
import {existsSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

describe('svc admin with profiles', {timeout: 120_000}, () => {
  const data = tempDir()
  const config = tempDir()
  const elsewhere = tempDir()
  let server: ServeProcess | undefined
  let adaToken = ''

  beforeAll(async () => {
    const ada = await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'])
    expect(ada.code, ada.stderr).toBe(0)
    adaToken = ada.json.token
    server = await svcServe(data, [], {timeoutMs: 120_000})
    const login = await svc(['login', '--url', server.url, '--token', adaToken, '--name', 'prod'], {env: {SVC_CONFIG_DIR: config}})
    expect(login.code, login.stderr).toBe(0)
  }, 300_000)
  afterAll(async () => {
    await server?.stop()
  })

  it('with a remote profile active and no --data, admin commands refuse and create nothing', async () => {
    const r = await svc(['admin', 'user', 'add', 'zed', '--role', 'admin'], {cwd: elsewhere, env: {SVC_CONFIG_DIR: config}})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('profile "prod" is a remote server')
    expect(r.stderr).toContain('--data')
    expect(readdirSync(elsewhere)).toEqual([])
    const json = await svc(['admin', 'user', 'list', '--json'], {cwd: elsewhere, env: {SVC_CONFIG_DIR: config}})
    expect(json.code).toBe(2)
    expect(json.json.error.message).toContain('remote server')
    const url = await svc(['admin', 'account', 'list'], {cwd: elsewhere, env: {SVC_URL: server!.url}})
    expect(url.code).toBe(2)
    expect(url.stderr).toContain('SVC_URL')
  })

  it('with --data they act on that dir and print the target line on stderr (never under --json)', async () => {
    const r = await svc(['admin', 'user', 'add', 'zed', '--data', data], {cwd: elsewhere, env: {SVC_CONFIG_DIR: config}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/^local: \S+/m)
    expect(existsSync(join(elsewhere, '.svc'))).toBe(false)
    const token = /Token \(shown only now\): (\S+)/.exec(r.stdout)![1]!
    // zed's token works on the server the profile points at, because it is the same data dir.
    const me = await svc(['whoami', '--json'], {env: {SVC_CONFIG_DIR: config, SVC_TOKEN: token}})
    expect(me.json.login).toBe('zed')
    const quiet = await svc(['admin', 'account', 'list', '--data', data, '--json'])
    expect(quiet.stderr).toBe('')
    expect(quiet.json).toEqual([expect.objectContaining({id: 1})])
  })

  it('admin commands that read or change a data dir refuse one that holds no svc data', async () => {
    const r = await svc(['admin', 'user', 'list', '--data', join(elsewhere, 'nope')])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('no svc data')
    expect(existsSync(join(elsewhere, 'nope'))).toBe(false)
  })

  it('admin user list shows the users without tokens', async () => {
    const r = await svc(['admin', 'user', 'list', '--data', data, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json.map((u: {login: string}) => u.login)).toEqual(['ada', 'zed'])
    expect(JSON.stringify(r.json)).not.toContain(adaToken)
    const human = await svc(['admin', 'user', 'list', '--data', data])
    expect(human.stdout).toContain('ada')
    expect(human.stdout).toContain('admin')
  })

  it('admin user token issues a new token and revokes the old one at once, on the running server too', async () => {
    const refused = await svc(['admin', 'user', 'token', 'ada', '--data', data])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('confirmation needs a terminal')
    expect((await svc(['whoami', '--url', server!.url, '--token', adaToken, '--json'])).code).toBe(0)

    const r = await svc(['admin', 'user', 'token', 'ada', '--data', data, '--yes', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json).toMatchObject({login: 'ada', revoked: 1, token: expect.any(String)})
    expect(r.json.token).not.toBe(adaToken)
    const old = await svc(['whoami', '--url', server!.url, '--token', adaToken])
    expect(old.code).toBe(3)
    expect(old.stderr).toContain('Error: unauthorized')
    expect(old.stderr).toMatch(/Try: .*--token.*SVC_TOKEN.*svc login/)
    const fresh = await svc(['whoami', '--url', server!.url, '--token', r.json.token, '--json'])
    expect(fresh.json.login).toBe('ada')
    const missing = await svc(['admin', 'user', 'token', 'nobody', '--data', data, '--yes'])
    expect(missing.code).toBe(4)
  })

  it('admin user token --read-only adds a token that reads and cannot write, without asking or revoking', async () => {
    const before = await svc(['admin', 'user', 'token', 'ada', '--data', data, '--yes', '--json'])
    const r = await svc(['admin', 'user', 'token', 'ada', '--read-only', '--data', data, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json).toMatchObject({login: 'ada', revoked: 0, read_only: true, token: expect.any(String)})
    const remote = (token: string) => ['--url', server!.url, '--token', token]
    expect((await svc(['whoami', ...remote(r.json.token), '--json'])).json.login).toBe('ada')
    const write = await svc(['prompt', 'create', '--code', 'ro', '--name', 'RO', '--content', 'x', ...remote(r.json.token)])
    expect(write.code).not.toBe(0)
    expect(write.stderr).toContain('read-only: this token may not change anything')
    expect((await svc(['whoami', ...remote(before.json.token), '--json'])).code).toBe(0) // the full token still works
  })
})
