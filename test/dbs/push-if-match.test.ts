// `svc db push` sends If-Match with the version its diff was made on (issue 27): a change made on
// the server between the diff and the apply is never overwritten — the push stops with a 412
// message and a second push shows the diff against the current version. The change is made by a
// proxy between the CLI and a real `svc serve`, at the moment the PATCH passes through it.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it, vi} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {startProxy} from '../helpers/proxy.js'
import {tempDir} from '../helpers/world.js'

vi.setConfig({testTimeout: 300_000, hookTimeout: 120_000})

const data = tempDir()
let server: ServeProcess | undefined
let proxy: Awaited<ReturnType<typeof startProxy>> | undefined
let proxyUrl = ''
let token = ''
/** Runs once, before the first PATCH or DELETE of a db (replace too) or of a record passes through the proxy: someone else's change. */
let meanwhile: (() => Promise<void>) | undefined

const direct = (method: string, path: string, body?: unknown) => fetch(`${server!.url}${path}`, {
  method, headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'}, body: body === undefined ? undefined : JSON.stringify(body),
}).then(async (r) => ({status: r.status, json: await r.json().catch(() => undefined)}))

beforeAll(async () => {
  token = (await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])).json.token
  server = await svcServe(data)
  proxy = await startProxy(server.url, async (req) => {
    if ((req.method === 'PATCH' || req.method === 'DELETE') && /^\/svc\/dbs\/\d+(\/replace|\/records\/\d+)?\.json$/.test(req.url ?? '') && meanwhile) {
      const change = meanwhile
      meanwhile = undefined
      await change()
    }
  })
  proxyUrl = proxy.url
})
afterAll(async () => {
  await proxy?.close()
  await server?.stop()
})

it('svc db push: a db changed between the diff and the apply is not overwritten (412); pushing again applies over the current version', async () => {
  const dir = tempDir()
  const file = join(dir, 'notes.json')
  const created = await direct('POST', '/svc/dbs.json', {db: {name: 'Notes', code: 'notes', schema: {fields: {title: 'string'}}}})
  expect(created.status).toBe(201)
  writeFileSync(file, JSON.stringify({name: 'Notes', code: 'notes', schema: {fields: {title: 'string', body: 'text'}}, public_methods: {}}))
  meanwhile = async () => {
    expect((await direct('PATCH', `/svc/dbs/${created.json.id}.json`, {db: {schema: {fields: {title: 'string', tags: 'string'}}}})).status).toBe(200)
  }
  let r = await svc(['db', 'push', file, '--yes', '--url', proxyUrl, '--token', token])
  expect(meanwhile).toBeUndefined()
  expect(r.code, r.stdout + r.stderr).not.toBe(0)
  expect(r.stdout).toContain('+ field body (text)')
  expect(r.stderr).toContain('notes changed on the server after the diff was made: nothing was applied to it')
  expect(r.stderr).toContain('run svc db push again')
  expect((await direct('GET', `/svc/dbs/${created.json.id}.json`)).json.schema).toEqual({fields: {title: 'string', tags: 'string'}})
  // Again: the diff is made against their version (tags would be dropped), then applied.
  r = await svc(['db', 'push', file, '--yes', '--url', proxyUrl, '--token', token])
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout).toContain('- field tags (string)')
  expect((await direct('GET', `/svc/dbs/${created.json.id}.json`)).json.schema).toEqual({fields: {title: 'string', body: 'text'}})
})

it('svc db push --force still sends If-Match: --force allows data loss, not overwriting a db changed after the diff', async () => {
  const dir = tempDir()
  const file = join(dir, 'drafts.json')
  const created = await direct('POST', '/svc/dbs.json', {db: {name: 'Drafts', code: 'drafts', schema: {fields: {title: 'string', old: 'string'}}}})
  expect(created.status).toBe(201)
  expect((await direct('POST', `/svc/dbs/${created.json.id}/records.json`, {record: {data: {title: 't', old: 'kept'}}})).status).toBe(201)
  writeFileSync(file, JSON.stringify({name: 'Drafts', code: 'drafts', schema: {fields: {title: 'string'}}, public_methods: {}}))
  meanwhile = async () => {
    expect((await direct('PATCH', `/svc/dbs/${created.json.id}.json`, {db: {name: 'Drafts theirs'}})).status).toBe(200)
  }
  const r = await svc(['db', 'push', file, '--yes', '--force', '--url', proxyUrl, '--token', token])
  expect(meanwhile).toBeUndefined()
  expect(r.code, r.stdout + r.stderr).toBe(1)
  expect(r.stdout).toContain('holds data in 1 record(s)')
  expect(r.stderr).toContain('drafts changed on the server after the diff was made: nothing was applied to it')
  expect((await direct('GET', `/svc/dbs/${created.json.id}.json`)).json).toMatchObject({name: 'Drafts theirs', schema: {fields: {title: 'string', old: 'string'}}})
})

/** A command that read the resource, then a change made before its write: exit 1, the refusal, `Try: run svc <command> again`. */
const refusedAfterRead = (r: {code: number; stdout: string; stderr: string}, what: string, command: string, nothing: string) => {
  expect(meanwhile).toBeUndefined()
  expect(r.code, r.stdout + r.stderr).toBe(1)
  expect(r.stderr).toContain(`${what} changed on the server after it was read: ${nothing}`)
  expect(r.stderr).toContain(`run svc ${command} again`)
}
const cli = (args: string[]) => svc([...args, '--url', proxyUrl, '--token', token])

it('svc db replace, db delete and db records delete apply to the version they read: one changed meanwhile is left alone (exit 1)', async () => {
  const db = (await direct('POST', '/svc/dbs.json', {db: {name: 'Cards', code: 'cards', schema: {fields: {title: 'string'}}}})).json
  meanwhile = async () => void expect((await direct('PATCH', `/svc/dbs/${db.id}.json`, {db: {schema: {fields: {title: 'string', theirs: 'integer'}}}})).status).toBe(200)
  refusedAfterRead(await cli(['db', 'replace', 'cards', '--field', 'schema', '--old', '"title": "string"', '--new', '"title": "text"']),
    'database cards', 'db replace', 'nothing was written')
  expect((await direct('GET', `/svc/dbs/${db.id}.json`)).json.schema).toEqual({fields: {title: 'string', theirs: 'integer'}})

  const rec = (await direct('POST', `/svc/dbs/${db.id}/records.json`, {record: {data: {title: 'mine'}}})).json
  meanwhile = async () => void expect((await direct('PATCH', `/svc/dbs/${db.id}/records/${rec.id}.json`, {record: {data: {title: 'theirs'}}})).status).toBe(200)
  refusedAfterRead(await cli(['db', 'records', 'delete', 'cards', String(rec.id), '--yes']), `record ${rec.id} of cards`, 'db records delete', 'nothing was deleted')
  expect((await direct('GET', `/svc/dbs/${db.id}/records/${rec.id}.json`)).json.data).toEqual({title: 'theirs'})

  meanwhile = async () => void expect((await direct('PATCH', `/svc/dbs/${db.id}.json`, {db: {name: 'Cards theirs'}})).status).toBe(200)
  refusedAfterRead(await cli(['db', 'delete', 'cards', '--yes']), 'database cards (Cards)', 'db delete', 'nothing was deleted')
  expect((await direct('GET', `/svc/dbs/${db.id}.json`)).json).toMatchObject({name: 'Cards theirs', records_count: 1})
  // Unchanged since the read: the delete applies.
  expect((await cli(['db', 'delete', 'cards', '--yes'])).code).toBe(0)
  expect((await direct('GET', `/svc/dbs/${db.id}.json`)).status).toBe(404)
})
