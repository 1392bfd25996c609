// Door `import` (docs/history.md "The doors"): records written by an import — the import route that
// `svc db import` and the console's import call — are journaled with door `import` whatever door the
// caller declares, with the caller as actor; a dry run or a refused import leaves no entry. Both
// stores (SVC_TEST_DATABASE_URL), both transports; and `svc db import` itself on a data dir.
import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {svc} from '../helpers/cli.js'
import {describeBothTransports} from '../helpers/scenarios.js'
import {tempDir} from '../helpers/world.js'

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
