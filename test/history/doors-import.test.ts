// Door `import` (docs/history.md "The doors"): records written by an import — the import route that
// `svc db import` and the console's import call — are journaled with door `import` whatever door the
// caller declares, with the caller as actor; a dry run or a refused import leaves no entry. Both
// stores (SVC_TEST_DATABASE_URL), both transports; `svc db import` itself on a data dir; and
// `svc admin import` of an account export: every prompt, db, record, connector and user it writes
// has its `create` entry, door import, no secret (both stores).
import {createHash} from 'node:crypto'
import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {svc} from '../helpers/cli.js'
import {appOver, call as callApp, targetFlags} from '../backups/helpers.js'
import {rawQuery} from '../helpers/pg.js'
import {describeBothTransports} from '../helpers/scenarios.js'
import {createWorld, tempDir, type World} from '../helpers/world.js'

describeBothTransports('door import', undefined, (ctx) => {
  it('journals an import\'s records with door import and the caller as actor; a dry run or a refused import journals nothing', async () => {
    const {call} = ctx()
    const db = (await call('POST', '/svc/dbs.json', {body: {db: {name: 'Imported', code: 'imported-door', schema: {fields: {name: 'string', n: 'integer'}}}}})).json
    const history = async () => (await call('GET', `/svc/history.json?kind=record&db=${db.id}&limit=100`)).json as any[]
    const records = [{data: {name: 'Ada'}}, {data: {name: 'Grace'}}, {data: {name: 'Linus'}}]

    const dry = await call('POST', `/svc/dbs/${db.id}/import.json?dry_run=1`, {body: {records}, headers: {'x-svc-door': 'cli'}})
    expect(dry.status).toBe(200)
    const refused = await call('POST', `/svc/dbs/${db.id}/import.json`, {body: {records: [...records, {data: {name: 'Bad', n: 'x'}}]}})
    expect(refused.status).toBe(422)
    expect(await history()).toEqual([])

    const done = await call('POST', `/svc/dbs/${db.id}/import.json`, {body: {records}, headers: {'x-svc-door': 'cli', 'x-request-id': 'import-7'}})
    expect(done.status).toBe(201)
    const entries = await history()
    expect(entries).toHaveLength(3)
    const admin = ctx().world.users.admin!
    for (const e of entries) {
      expect(e).toMatchObject({op: 'create', door: 'import', client: null, request_id: 'import-7', db_id: db.id})
      expect(e.actor).toEqual({type: 'user', id: String(admin.id), name: 'admin'})
    }
    expect((await call('GET', `/svc/history.json?door=import&kind=record&db=${db.id}`)).json).toHaveLength(3)
    // A record's own create is not an import.
    expect((await call('POST', `/svc/dbs/${db.id}/records.json`, {body: {record: {data: {name: 'Solo'}}}})).status).toBe(201)
    expect((await history())[0]).toMatchObject({op: 'create', door: 'api'})
  })
})

describe('svc db import', () => {
  const data = tempDir()
  afterAll(() => rmSync(data, {recursive: true, force: true}))

  it('writes its records through door import, as `svc history` shows', async () => {
    expect((await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data])).code).toBe(0)
    expect((await svc(['db', 'create', 'Books', '--code', 'books', '--data', data])).code).toBe(0)
    const file = join(data, 'books.ndjson')
    writeFileSync(file, '{"title":"Dune"}\n{"title":"Emma"}\n')
    const imported = await svc(['db', 'import', 'books', file, '--data', data, '--json'])
    expect(imported.code, imported.stderr).toBe(0)
    const listed = await svc(['history', 'record', 'books', '--json', '--data', data])
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.json.map((e: {op: string; door: string}) => `${e.op} ${e.door}`)).toEqual(['create import', 'create import'])
    const text = await svc(['history', '--door', 'import', '--data', data])
    expect(text.stdout).toMatch(/create\s+import\s+admin/)
  })
})

describe('svc admin import', () => {
  let one: World
  let two: World
  const files = tempDir()
  afterAll(async () => {
    await one?.close()
    await two?.close()
    rmSync(files, {recursive: true, force: true})
  })

  it('journals every prompt, db, record, connector and user it writes: op create, door import, no secret', async () => {
    one = await createWorld()
    const t = one.users.admin!.token
    const ok = async (r: Promise<{status: number; text: string; json: any}>) => {
      const got = await r
      expect(got.status, got.text).toBeLessThan(300)
      return got.json
    }
    await ok(callApp(one.app, t, 'POST', '/svc/prompts.json', {prompt: {name: 'Carried', code: 'carried', content: 'Hi'}}))
    const db = await ok(callApp(one.app, t, 'POST', '/svc/dbs.json', {db: {name: 'Carried', code: 'carried'}}))
    for (const name of ['Ada', 'Grace']) await ok(callApp(one.app, t, 'POST', `/svc/dbs/${db.id}/records.json`, {record: {data: {name}}}))
    await ok(callApp(one.app, t, 'POST', '/svc/resources.json', {resource: {kind: 'svc/custom_connector', code: 'carried-weather', name: 'Weather',
      url: 'https://api.example.com', secret_token: 'sekret-carried-0123456789', fields: {methods: [{name: 'now', http_method: 'GET', path: '/now'}]}}}))
    const file = join(files, 'acme.svcbak')
    const exported = await svc(['admin', 'export', '--account', String(one.accounts.acme), ...targetFlags(one), '--out', file, '--json'])
    expect(exported.code, exported.stderr).toBe(0)

    two = await createWorld({accounts: ['zeta'], users: [{login: 'zed', role: 'admin'}]})
    const imported = await svc(['admin', 'import', file, ...targetFlags(two), '--with-tokens', '--yes', '--json'])
    expect(imported.code, imported.stderr).toBe(0)
    const accountId = imported.json.account.id as number
    const rows = await rawQuery(two, 'SELECT kind, op, door, actor_id, state, summary FROM journal WHERE account_id = ? ORDER BY pos', [accountId])
    const counts: Record<string, number> = {}
    for (const r of rows) {
      expect(`${r.op} ${r.door}`).toBe('create import')
      expect(r.actor_id).toBe(null)
      counts[r.kind] = (counts[r.kind] ?? 0) + 1
    }
    expect(counts).toMatchObject({prompt: 1, db: 1, record: 2, resource: 1, user: 2, token: 2})
    expect(JSON.stringify(rows)).not.toContain('sekret-carried')
    for (const u of Object.values(one.users)) {
      expect(JSON.stringify(rows)).not.toContain(u.token)
      expect(JSON.stringify(rows)).not.toContain(createHash('sha256').update(u.token).digest('hex'))
    }

    // Through the API of the target: the imported admin (its token carried over) reads them as door import.
    const served = await appOver(two)
    try {
      const history = await callApp(served.app, one.users.admin!.token, 'GET', '/svc/history.json?door=import&kind=record')
      expect(history.status, history.text).toBe(200)
      expect(history.json.map((e: any) => `${e.op} ${e.door}`)).toEqual(['create import', 'create import'])
      const shown = await callApp(served.app, one.users.admin!.token, 'GET', `/svc/history/${history.json[0].bookmark}.json`)
      expect(shown.status, shown.text).toBe(200)
      expect(shown.json.version.data).toEqual({name: 'Grace'})
    } finally {
      await served.close()
    }
  })
})
