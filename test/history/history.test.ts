// The journal (docs/history.md): every write's version, door and actor; history, diffs, restores,
// trash, restore since a time; a failed write leaves no entry; a user never reads the history of
// what they cannot read. Both stores (SVC_TEST_DATABASE_URL), both transports.
import {expect, it} from 'vitest'
import {rawQuery} from '../helpers/pg.js'
import {describeBothTransports} from '../helpers/scenarios.js'

describeBothTransports('the journal', undefined, (ctx) => {
  const journalCount = async () => Number((await rawQuery(ctx().world, 'SELECT count(*) AS n FROM journal'))[0].n)
  const history = async (query: string, as?: string) => {
    const r = await ctx().call('GET', `/svc/history.json${query}`, as === undefined ? {} : {as})
    expect(r.status).toBe(200)
    return r.json as any[]
  }

  it('keeps every version of a prompt with its door and actor; shows one with the diff; restores it with If-Match; the restore is undone by restoring again', async () => {
    const {call} = ctx()
    const made = await call('POST', '/svc/prompts.json', {body: {prompt: {name: 'Greet', code: 'greet-h', content: 'Hello\nworld\n'}}})
    const created = made.json
    const v1 = (await call('GET', `/svc/prompts/${created.id}.json`)).json
    const patched = await call('PATCH', `/svc/prompts/${created.id}.json`, {body: {prompt: {content: 'Hello\nthere\n'}},
      headers: {'x-svc-door': 'cli', 'x-request-id': 'trace-42'}})
    expect(patched.status).toBe(200)

    const entries = await history(`?kind=prompt&id=${created.id}`)
    expect(entries.map((e) => [e.op, e.door])).toEqual([['update', 'cli'], ['create', 'api']])
    expect(entries[0].actor).toEqual({type: 'user', id: String(ctx().world.users.admin!.id), name: 'admin'})
    expect(entries[0].bookmark > entries[1].bookmark).toBe(true)
    expect(entries[0].summary).toContain('Greet')
    // The request id journaled is the one answered in X-Request-Id: the caller's, or the one made for it.
    expect(entries.map((e) => e.request_id)).toEqual(['trace-42', made.headers.get('x-request-id')])
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)

    const shown = (await call('GET', `/svc/history/${entries[0].bookmark}.json?diff=1`)).json
    expect(shown.version.content).toBe('Hello\nthere\n')
    expect(shown.previous).toEqual(v1)
    expect(shown.diff.changed).toEqual(expect.arrayContaining(['content', 'updated_at']))
    expect(shown.diff.patch).toContain('-world')
    expect(shown.diff.patch).toContain('+there')
    expect((await call('GET', `/svc/history/${entries[1].bookmark}.json`)).json.version).toEqual(v1)

    const stale = await call('POST', `/svc/history/${entries[1].bookmark}/restore.json`, {headers: {'if-match': '"p-stale"'}})
    expect(stale.status).toBe(412)
    expect(stale.json.current.content).toBe('Hello\nthere\n')
    const etag = (await call('GET', `/svc/prompts/${created.id}.json`)).headers.get('etag')!
    const restored = await call('POST', `/svc/history/${entries[1].bookmark}/restore.json`, {headers: {'if-match': etag}})
    expect(restored.status).toBe(200)
    expect(restored.json.version).toEqual(v1)
    expect((await call('GET', `/svc/prompts/${created.id}.json`)).json).toEqual(v1)

    // The restore is an entry of its own: restoring the one before it undoes it.
    const after = await history(`?kind=prompt&id=${created.id}`)
    expect(after[0]).toMatchObject({op: 'restore', bookmark: restored.json.bookmark})
    expect((await call('POST', `/svc/history/${after[1].bookmark}/restore.json`)).status).toBe(200)
    expect((await call('GET', `/svc/prompts/${created.id}.json`)).json.content).toBe('Hello\nthere\n')
  })

  it('lists deletes as the trash; a deleted prompt comes back as it was; a code taken meanwhile is a 422 naming it', async () => {
    const {call} = ctx()
    const p = (await call('POST', '/svc/prompts.json', {body: {prompt: {name: 'Gone', code: 'gone-h', content: 'bye'}}})).json
    const before = (await call('GET', `/svc/prompts/${p.id}.json`)).json
    expect((await call('DELETE', `/svc/prompts/${p.id}.json`)).status).toBe(204)
    const trash = await history('?op=delete&kind=prompt')
    expect(trash[0]).toMatchObject({op: 'delete', id: p.id, kind: 'prompt'})
    const shown = (await call('GET', `/svc/history/${trash[0].bookmark}.json`)).json
    expect(shown.version).toBe(null)
    expect(shown.previous).toEqual(before)

    const squatter = (await call('POST', '/svc/prompts.json', {body: {prompt: {name: 'Squat', code: 'gone-h', content: 'mine'}}})).json
    const taken = await call('POST', `/svc/history/${trash[0].bookmark}/restore.json`)
    expect(taken.status).toBe(422)
    expect(taken.json.code).toEqual(['has already been taken'])
    expect(taken.json.restore[0]).toContain('"gone-h" was taken meanwhile')
    expect((await call('DELETE', `/svc/prompts/${squatter.id}.json`)).status).toBe(204)

    expect((await call('POST', `/svc/history/${trash[0].bookmark}/restore.json`)).status).toBe(200)
    expect((await call('GET', `/svc/prompts/${p.id}.json`)).json).toEqual(before)
  })

  it('a deleted db comes back with its records, byte for byte; a deleted record comes back', async () => {
    const {call} = ctx()
    const db = (await call('POST', '/svc/dbs.json', {body: {db: {name: 'Trashy', code: 'trashy-h'}}})).json
    for (let i = 0; i < 5; i++) await call('POST', `/svc/dbs/${db.id}/records.json`, {body: {record: {data: {n: i, s: `r${i}`}}}})
    const records = (await call('GET', `/svc/dbs/${db.id}/records.json`)).json
    const dbBefore = (await call('GET', `/svc/dbs/${db.id}.json`)).json
    expect((await call('DELETE', `/svc/dbs/${records[0].id}`.replace(/.*/, `/svc/dbs/${db.id}/records/${records[0].id}.json`))).status).toBe(204)
    expect((await call('DELETE', `/svc/dbs/${db.id}.json`)).status).toBe(204)
    expect((await call('GET', '/svc/dbs/trashy-h.json')).status).toBe(404)

    const dbDelete = (await history('?kind=db&op=delete'))[0]
    expect(dbDelete.id).toBe(String(db.id))
    const back = await call('POST', `/svc/history/${dbDelete.bookmark}/restore.json`)
    expect(back.status).toBe(200)
    expect((await call('GET', '/svc/dbs/trashy-h.json')).json).toEqual({...dbBefore, records_count: 4})
    const recordDelete = (await history(`?db=trashy-h&op=delete`))[0]
    expect(recordDelete).toMatchObject({kind: 'record', id: String(records[0].id), db_id: db.id})
    expect((await call('POST', `/svc/history/${recordDelete.bookmark}/restore.json`)).status).toBe(200)
    expect((await call('GET', `/svc/dbs/${db.id}/records.json`)).json).toEqual(records)
  })

  it('records the door: mcp with its client, public (a visitor), api; a write that fails leaves no entry', async () => {
    const {call} = ctx()
    const db = (await call('POST', '/svc/dbs.json', {body: {db: {name: 'Open', code: 'open-h', public_methods: {create: true, list: true}}}})).json
    await call('POST', `/svc/dbs/${db.id}/records.json`, {body: {record: {data: {via: 'mcp'}}}, headers: {'x-svc-door': 'mcp', 'x-svc-client': 'claude-code'}})
    await call('POST', `/svc/dbs/${db.id}/records.json`, {body: {record: {data: {via: 'spoof'}}}, headers: {'x-svc-door': 'flow'}})
    expect((await call('POST', '/svc/db/open-h/create', {as: null, body: {data: {via: 'public'}}})).status).toBeLessThan(300)
    // The console: its session cookie, on a same-origin request (a door header cannot claim it).
    const session = await ctx().world.store.accounts.createToken(ctx().world.users.alice!.id, 'session', 3600)
    const viaConsole = await call('POST', `/svc/dbs/${db.id}/records.json`, {
      as: null, body: {record: {data: {via: 'console'}}}, headers: {cookie: `svc_session=${session}`, 'sec-fetch-site': 'same-origin', 'x-svc-door': 'mcp'},
    })
    expect(viaConsole.status).toBe(201)
    const entries = await history(`?db=${db.id}`)
    expect(entries.map((e) => [e.door, e.client, e.actor.type, e.actor.name])).toEqual([
      ['console', null, 'user', 'alice'], ['public', null, 'visitor', null], ['api', null, 'user', 'admin'], ['mcp', 'claude-code', 'user', 'admin'],
    ])
    expect((await history('?door=mcp&client=claude-code')).map((e) => e.id)).toEqual([entries[3].id])

    const n = await journalCount()
    expect((await call('POST', '/svc/dbs.json', {body: {db: {name: 'Dup', code: 'open-h'}}})).status).toBe(422)
    expect((await call('POST', '/svc/prompts.json', {body: {prompt: {name: 'x', code: 'greet-h', content: 'x'}}})).status).toBe(422)
    expect((await call('PATCH', `/svc/dbs/${db.id}.json`, {body: {db: {name: 'Nope'}}, headers: {'if-match': '"d1-0"'}})).status).toBe(412)
    expect(await journalCount()).toBe(n)
  })

  it('a user never reads the history of what they cannot read; another account reads none of it', async () => {
    const {call} = ctx()
    const mine = (await call('POST', '/svc/prompts.json', {body: {prompt: {name: 'Private', code: 'private-h', content: 'secret', scope: 'user'}}})).json
    const adminEntries = await history(`?kind=prompt&id=${mine.id}`)
    expect(adminEntries).toHaveLength(1)
    expect(await history(`?kind=prompt&id=${mine.id}`, 'alice')).toEqual([])
    expect((await call('GET', `/svc/history/${adminEntries[0].bookmark}.json`, {as: 'alice'})).status).toBe(404)
    expect((await call('POST', `/svc/history/${adminEntries[0].bookmark}/restore.json`, {as: 'alice'})).status).toBe(404)
    // A prompt everyone read, made private since: its history goes with it.
    const shared = (await call('POST', '/svc/prompts.json', {body: {prompt: {name: 'Shared', code: 'shared-h', content: 'hello'}}})).json
    expect(await history(`?kind=prompt&id=${shared.id}`, 'alice')).toHaveLength(1)
    expect((await call('PATCH', `/svc/prompts/${shared.id}.json`, {body: {prompt: {scope: 'user'}}})).status).toBe(200)
    expect(await history(`?kind=prompt&id=${shared.id}`, 'alice')).toEqual([])
    expect(await history(`?kind=prompt&id=${shared.id}`)).toHaveLength(2)
    // Another account's admin reads only her own account's entries: her user and its token, as the world seeded them.
    const mallory = String(ctx().world.users.mallory!.id)
    expect((await history('', 'mallory')).map((e) => (e.kind === 'user' ? e.id : e.kind === 'token' ? /of user #(\d+)/.exec(e.summary)?.[1] : e.kind)))
      .toEqual([mallory, mallory])
    expect((await call('GET', `/svc/history/${adminEntries[0].bookmark}.json`, {as: 'mallory'})).status).toBe(404)
    expect((await call('GET', '/svc/history.json', {as: null})).status).toBe(401)
    expect((await call('GET', '/svc/history.json?limit=0')).status).toBe(422)
    expect((await call('GET', '/svc/history.json?since=yesterday')).status).toBe(422)
    expect((await call('GET', '/svc/history/abc.json')).status).toBe(404)
  })

  it('restores everything one door changed since a time (dry run first), and that restore is undone the same way', async () => {
    const {call} = ctx()
    const app = (await call('POST', '/svc/apps.json', {body: {app: {name: 'Since', url_code: 'since-h', source_code: '<p>one</p>', app_engine: 'html'}}})).json
    const appBefore = (await call('GET', `/svc/apps/${app.id}.json`)).json
    await new Promise((r) => setTimeout(r, 5))
    const since = new Date().toISOString()
    await new Promise((r) => setTimeout(r, 5))
    const mcp = {'x-svc-door': 'mcp', 'x-svc-client': 'agent-x'}
    expect((await call('PATCH', `/svc/apps/${app.id}.json`, {body: {app: {source_code: '<p>two</p>'}}, headers: mcp})).status).toBe(200)
    const made = (await call('POST', '/svc/prompts.json', {body: {prompt: {name: 'New', code: 'new-h', content: 'n'}}, headers: mcp})).json

    const dry = await call('POST', '/svc/history/restore.json', {body: {since, door: 'mcp', client: 'agent-x', dry_run: true}})
    expect(dry.status).toBe(200)
    expect(dry.json.restored).toEqual(expect.arrayContaining([
      {kind: 'app', id: app.id, bookmark: null, to: 'version'}, {kind: 'prompt', id: made.id, bookmark: null, to: 'absent'},
    ]))
    expect((await call('GET', `/svc/apps/${app.id}.json`)).json.source_code).toBe('<p>two</p>')

    const undoAt = new Date().toISOString()
    const done = await call('POST', '/svc/history/restore.json', {body: {since, door: 'mcp', client: 'agent-x'}})
    expect(done.json.conflicts).toEqual([])
    expect(done.json.restored).toHaveLength(2)
    expect((await call('GET', `/svc/apps/${app.id}.json`)).json).toEqual(appBefore)
    expect((await call('GET', `/svc/prompts/${made.id}.json`)).status).toBe(404)

    const undo = await call('POST', '/svc/history/restore.json', {body: {since: undoAt, kind: 'app'}})
    expect(undo.json.restored).toEqual([expect.objectContaining({kind: 'app', id: app.id, to: 'version'})])
    expect((await call('GET', `/svc/apps/${app.id}.json`)).json.source_code).toBe('<p>two</p>')
  })
})
