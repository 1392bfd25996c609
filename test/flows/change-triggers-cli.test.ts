/**
 * `svc trigger create|list|update|delete` (embedded and remote, --json and text), and a change made
 * through the CLI delivered by `svc serve`'s change service to a stub webhook, listed by `svc flow runs`.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svc, svcServe, type CliResult, type ServeProcess} from '../helpers/cli.js'
import {createTestDatabase, pg} from '../helpers/pg.js'
import {tempDir} from '../helpers/world.js'
import {startStub, weatherConnector, type Stub} from './stub.js'

describe('svc trigger (embedded and remote)', {timeout: 240_000}, () => {
  const data = tempDir()
  let stub: Stub
  let server: ServeProcess
  let token = ''
  /** On the PostgreSQL half, every command and the server use a database of their own (SVC_DATABASE_URL). */
  let env: Record<string, string> = {}
  let drop: (() => Promise<void>) | undefined

  const run = (args: string[]): Promise<CliResult> => svc(args, {env})
  const local = (...args: string[]) => run([...args, '--data', data, '--json'])
  /** A remote command names the server only (no database URL beside --url). */
  const remote = (...args: string[]) => svc([...args, '--url', server.url, '--token', token, '--json'])

  beforeAll(async () => {
    if (pg) {
      const db = await createTestDatabase()
      env = {SVC_DATABASE_URL: db.url}
      drop = db.drop
    }
    stub = await startStub()
    const admin = await run(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])
    expect(admin.code, admin.stderr).toBe(0)
    token = admin.json.token
    // The embedded backend writes beside the server: its changes are seen by the server's poll.
    server = await svcServe(data, ['--allow-connector-hosts', '127.0.0.1'], {env: {...env, SVC_CHANGE_POLL_MS: '100'}})
  })
  afterAll(async () => {
    await server?.stop()
    await stub?.close()
    await drop?.()
  })

  it('create, list, update, delete; a change through the CLI is delivered once and listed as a run', async () => {
    const api = (method: string, path: string, body?: unknown) =>
      fetch(server.url + path, {method, headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'}, body: body && JSON.stringify(body)})
    expect((await api('POST', '/svc/resources.json', {resource: weatherConnector(stub.url)})).status).toBe(201)
    expect((await api('POST', '/svc/resources.json', {resource: {kind: 'svc/custom_flow', code: 'notify', fields: {program: [
      {type: 'connector', connector: 'weather', method: 'echo', params: {op: '{op}', record: '{record}'}, into: 'answer'},
    ]}}})).status).toBe(201)
    const db = await local('db', 'create', 'Shop', '--code', 'shop', '--schema', JSON.stringify({tables: {orders: {fields: {n: 'integer'}}, notes: {fields: {n: 'integer'}}}}))
    expect(db.code, db.stderr).toBe(0)

    const created = await local('trigger', 'create', '--db', 'shop', '--table', 'orders', '--op', 'create,delete', '--flow', 'notify')
    expect(created.code, created.stderr).toBe(0)
    expect(created.json).toMatchObject({id: expect.any(Number), db_id: db.json.id, table_name: 'orders', ops: ['create', 'delete'], target_code: 'notify', active: true})
    const id = String(created.json.id)

    const listed = await remote('trigger', 'list')
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.json).toEqual([created.json])
    const text = await run(['trigger', 'list', '--data', data])
    expect(text.stdout).toMatch(new RegExp(`${id}[\\s│]+${db.json.id}[\\s│]+orders[\\s│]+create,delete[\\s│]+notify[\\s│]+yes`))

    // Bad input: a clear error, nothing written.
    const noFlow = await local('trigger', 'create', '--db', 'shop', '--flow', 'nope')
    expect(noFlow.code).toBe(5)
    expect(noFlow.json.error.details).toMatchObject({target_code: [expect.stringMatching(/names no flow/)]})
    const noDb = await local('trigger', 'create', '--db', 'nope', '--flow', 'notify')
    expect(noDb.code).not.toBe(0)
    expect(noDb.stderr + noDb.stdout).toMatch(/not found/)
    const badOp = await local('trigger', 'create', '--db', 'shop', '--flow', 'notify', '--op', 'upsert')
    expect(badOp.json.error.details).toMatchObject({ops: [expect.stringMatching(/create, update, delete/)]})
    const nothing = await local('trigger', 'update', id)
    expect(nothing.code).toBe(2)
    expect((await remote('trigger', 'list')).json).toHaveLength(1)

    // A change through the embedded CLI (not through the server): the server's poll sees it.
    const record = await local('db', 'records', 'create', 'shop', '{"n": 1}', '--table', 'orders')
    expect(record.code, record.stderr).toBe(0)
    const runsOf = async () => (await remote('flow', 'runs', '--trigger', 'db_change', '--db-trigger', id)).json as any[]
    await expect.poll(async () => (await runsOf()).filter((r) => r.status === 'finished').length, {timeout: 60_000, interval: 200}).toBe(1)
    const [delivery] = await runsOf()
    expect(delivery).toMatchObject({trigger: 'db_change', db_trigger_id: Number(id), input: {op: 'create', record: {id: record.json.id, data: {n: 1}}, door: 'cli'}})
    const posted = stub.requests.filter((r) => r.path === '/api/echo')
    expect(posted).toHaveLength(1)
    expect(JSON.parse(posted[0]!.body)).toMatchObject({op: 'create', record: {id: record.json.id, data: {n: 1}}})
    expect(posted[0]!.headers['x-svc-flow-run']).toBe(delivery.id)
    const table = await svc(['flow', 'runs', '--trigger', 'db_change', '--url', server.url, '--token', token])
    expect(table.stdout).toContain(`db_change ${id}`)

    const updated = await remote('trigger', 'update', id, '--no-active', '--op', 'update', '--table', '')
    expect(updated.code, updated.stderr).toBe(0)
    expect(updated.json).toMatchObject({active: false, ops: ['update'], table_name: null})

    const refused = await run(['trigger', 'delete', id, '--data', data])
    expect(refused.code).not.toBe(0)
    const deleted = await local('trigger', 'delete', id, '--yes')
    expect(deleted.code, deleted.stderr).toBe(0)
    expect(deleted.json).toEqual({id: Number(id), deleted: true})
    expect((await remote('trigger', 'list')).json).toEqual([])
  })
})
