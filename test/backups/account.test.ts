// One account at a time (issue 36, docs/backups.md "One account at a time"): `svc admin export`
// writes one account's workspace; `svc admin import` puts it into another server as a new account
// with every integer id renumbered (references, prompt scopes, grid settings, records' {user_id}
// fields); codes that collide there are listed by --dry-run, refuse the import and write nothing;
// once renamed, everything reads back through the API as on the first server; tokens travel only
// with --with-tokens; a fresh data dir is seeded the same way.
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {SvcApp} from '../../src/http/app.js'
import {svc} from '../helpers/cli.js'
import {plain, svcTty} from '../cli/tty.js'
import {createTestDatabase, pg} from '../helpers/pg.js'
import {createWorld, tempDir, type World} from '../helpers/world.js'
import {appOver, call, targetFlags, type Target} from './helpers.js'

const ok = (r: {status: number; text: string}) => {
  expect(r.status, r.text).toBeLessThan(300)
  return r
}

/** Everything an account's admin reads, by path (lists, each resource, records, settings, selections). */
async function readAccount(app: SvcApp, token: string) {
  const out: Record<string, unknown> = {}
  const get = async (path: string) => (await call(app, token, 'GET', path)).json
  for (const path of ['/svc/me.json', '/svc/me/settings.json', '/svc/users.json', '/svc/prompts.json', '/svc/dbs.json', '/svc/apps.json',
    '/svc/resources.json', '/toolkit/dashboards.json', '/toolkit/dashboards/widgets.json?context=main', '/account/crons.json', '/account/db_triggers.json', '/connect/flow_processes.json']) {
    out[path] = await get(path)
  }
  for (const db of (out['/svc/dbs.json'] as {id: number; code: string}[])) {
    out[`db ${db.code}`] = await get(`/svc/dbs/${db.id}.json`)
    out[`records ${db.code}`] = await get(`/svc/dbs/${db.id}/records.json?limit=100`)
  }
  for (const p of (out['/svc/prompts.json'] as {id: string; code: string}[])) out[`prompt ${p.code}`] = await get(`/svc/prompts/${p.id}.json`)
  for (const a of (out['/svc/apps.json'] as {id: string; url_code: string}[])) {
    out[`app ${a.url_code}`] = await get(`/svc/apps/${a.id}.json`)
    out[`assets ${a.url_code}`] = await get(`/svc/apps/${a.id}/assets.json`)
  }
  return out
}

/** A reading with every id, reference and ETag taken out: what must be equal across servers. */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds)
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([k]) => !/^(id|current_id|dashboard_id|etag)$|_ids?$/.test(k)).map(([k, v]) => [k, withoutIds(v)]))
  }
  return value
}

/** What the first server's reading becomes on another: the records' owner is the new alice, the connector's secret left out (no passphrase). */
function expectedOn(reading: Record<string, unknown>, before: Record<string, unknown>) {
  const expected = structuredClone(before)
  const alice = (reading['/svc/users.json'] as {id: number; login: string}[]).find((u) => u.login === 'alice')!.id
  ;(expected['records notes'] as {data: {owner: string}}[])[0]!.data.owner = String(alice)
  ;(expected['/svc/resources.json'] as {code: string; has_secret_token: boolean}[]).find((r) => r.code === 'weather')!.has_secret_token = false
  const notesOf = (r: Record<string, unknown>) => (r['/svc/dbs.json'] as {id: number; code: string}[]).find((d) => d.code === 'notes')!.id
  const settings = (expected['/svc/me/settings.json'] as {settings: Record<string, unknown>}).settings
  const grid = settings[`grid:${notesOf(before)}:`]
  delete settings[`grid:${notesOf(before)}:`]
  settings[`grid:${notesOf(reading)}:`] = grid
  return withoutIds(expected)
}

const settingsKeysOf = (reading: Record<string, unknown>) => Object.keys((reading['/svc/me/settings.json'] as {settings: object}).settings)

describe('account export and import', () => {
  let one: World
  let two: World
  let before: Record<string, unknown>
  let aliceId: number
  const files = tempDir('svc-account-')
  const file = join(files, 'acme.svcbak')
  const drops: (() => Promise<void>)[] = []

  beforeAll(async () => {
    one = await createWorld({
      accounts: ['acme', 'other'],
      users: [
        {login: 'admin', role: 'admin', teams: ['ops'], department: 'eng'},
        {login: 'alice', role: 'user', teams: ['ops']},
        {login: 'mallory', account: 'other', role: 'admin'},
      ],
    })
    const {admin, alice, mallory} = one.users
    aliceId = alice.id
    const app = one.app
    const t = admin.token
    ok(await call(app, t, 'POST', '/svc/prompts.json', {prompt: {name: 'Greet', code: 'greet', content: 'Hello {{ who }} ✓'}}))
    ok(await call(app, t, 'POST', '/svc/prompts.json', {prompt: {name: 'Ops', code: 'ops_hello', content: 'for ops', scope: 'team', scope_id: admin.teamIds[0]}}))
    ok(await call(app, t, 'POST', '/svc/prompts.json', {prompt: {name: 'Eng', code: 'eng_hello', content: 'for eng', scope: 'department', scope_id: admin.departmentIds[0]}}))
    const books = ok(await call(app, t, 'POST', '/svc/dbs.json', {db: {name: 'Books', code: 'books', schema: {fields: {title: 'string'}}, public_methods: {list: true}}})).json
    for (let i = 0; i < 5; i++) ok(await call(app, t, 'POST', `/svc/dbs/${books.id}/records.json`, {record: {data: {title: `Book ${i}`}}}))
    const notes = ok(await call(app, t, 'POST', '/svc/dbs.json', {db: {name: 'Notes', code: 'notes', schema: {fields: {text: 'string', owner: 'string'}, indexed_fields: ['owner']},
      public_methods: {create: {auto_fields: {owner: '{user_id}'}}, list: {scope_by: 'owner'}}}})).json
    ok(await call(app, t, 'POST', `/svc/dbs/${notes.id}/records.json`, {record: {data: {text: 'alice wrote this', owner: String(alice.id)}}}))
    ok(await call(app, t, 'PATCH', '/svc/me/settings.json', {settings: {[`grid:${notes.id}:`]: {hidden: ['owner']}, theme: 'dark'}}))
    const page = ok(await call(app, t, 'POST', '/svc/apps.json', {app: {name: 'Page', url_code: 'page', app_engine: 'html', css_engine: 'none', source_code: '<h1>Hi</h1>', public: true}})).json
    ok(await call(app, t, 'PUT', `/svc/apps/${page.id}/assets.json`, {asset: {path: 'assets/hello.txt', data_base64: Buffer.from('hello asset').toString('base64')}}))
    const board = ok(await call(app, t, 'POST', '/toolkit/dashboards.json', {dashboard: {name: 'Mine', layout: [{key: 'activity', size: 'half'}]}})).json
    ok(await call(app, t, 'PATCH', '/toolkit/dashboards/select.json', {context: 'main', dashboard_id: board.id}))
    ok(await call(app, t, 'POST', '/svc/resources.json', {resource: {kind: 'svc/custom_connector', code: 'weather', name: 'Weather', url: 'https://api.example.com',
      secret_token: 'sekret-token-0123456789', fields: {methods: [{name: 'now', http_method: 'GET', path: '/now'}]}}}))
    const flow = ok(await call(app, t, 'POST', '/svc/resources.json', {resource: {kind: 'svc/custom_flow', code: 'tally', fields: {program: [{type: 'mutation', set: {done: true}}]}}})).json
    ok(await call(app, t, 'POST', '/account/crons.json', {cron: {kind: 'flow', target_code: 'tally', schedule: '0 8 * * *', active: false}}))
    ok(await call(app, t, 'POST', '/account/db_triggers.json', {db_trigger: {db_id: notes.id, ops: ['create'], target_code: 'tally', active: false}}))
    const run = ok(await call(app, t, 'POST', `/svc/resources/${flow.id}/run.json`, {input: {n: 1}})).json
    for (let i = 0; i < 200 && (await call(app, t, 'GET', `/connect/flow_processes/${run.id}.json`)).json.status === 'pending'; i++) await new Promise((r) => setTimeout(r, 25))
    // The other account's things stay out of acme's export.
    ok(await call(app, mallory.token, 'POST', '/svc/prompts.json', {prompt: {name: 'Theirs', code: 'theirs', content: 'other account'}}))
    before = await readAccount(app, t)

    // Server two: another account, whose app url_code, connector code and public db code are acme's.
    two = await createWorld({accounts: ['zeta'], users: [{login: 'zed', role: 'admin'}]})
    const z = two.users.zed!.token
    ok(await call(two.app, z, 'POST', '/svc/apps.json', {app: {name: 'Their page', url_code: 'page', app_engine: 'html', css_engine: 'none', source_code: '<p>x</p>'}}))
    ok(await call(two.app, z, 'POST', '/svc/resources.json', {resource: {kind: 'svc/custom_connector', code: 'weather', name: 'Theirs', url: 'https://x.example.com',
      fields: {methods: [{name: 'now', http_method: 'GET', path: '/now'}]}}}))
    ok(await call(two.app, z, 'POST', '/svc/dbs.json', {db: {name: 'Their books', code: 'books', public_methods: {list: true}}}))
  })
  afterAll(async () => {
    await one?.close()
    await two?.close()
    for (const drop of drops) await drop()
  })

  it('export writes one account: its header names it, the other account stays out', async () => {
    const r = await svc(['admin', 'export', '--account', String(one.accounts.acme), ...targetFlags(one), '--out', file, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json).toMatchObject({account: {id: one.accounts.acme, name: 'acme'}, secrets: 'left out',
      tables: {accounts: 1, users: 2, prompts: 3, dbs: 2, db_records: 6, apps: 1, app_assets: 1, dashboards: 1, dashboard_selections: 1, crons: 1, db_triggers: 1, flow_processes: 1}})
    expect(r.json.tables.tokens).toBe(2)
    expect(r.json.tables.server_secrets).toBeUndefined()
    const missing = await svc(['admin', 'export', '--account', '999', ...targetFlags(one), '--out', join(files, 'none.svcbak')])
    expect(missing.code).toBe(4)
    expect(missing.stderr).toContain('no account 999')
    expect(existsSync(join(files, 'none.svcbak'))).toBe(false)
    const v = await svc(['admin', 'backup', 'verify', file, '--json'])
    expect(v.code, v.stderr).toBe(0)
    expect(v.json).toMatchObject({ok: true, account: {name: 'acme'}})
  })

  it('a dry run lists what collides; the import refuses with the list and writes nothing', async () => {
    const accountsBefore = (await svc(['admin', 'account', 'list', ...targetFlags(two), '--json'])).json
    const dry = await svc(['admin', 'import', file, ...targetFlags(two), '--dry-run', '--json'])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.json).toMatchObject({dry_run: true, account: {id: null, name: 'acme', new: true}, tokens: 'left out', tables: {db_records: 6, tokens: 0}})
    const collided = (dry.json.collisions as {kind: string; value: string}[]).map((c) => `${c.kind} ${c.value}`).sort()
    expect(collided).toEqual(['app_url_code page', 'connector_code weather', 'public_db_code books'])
    const text = await svc(['admin', 'import', file, ...targetFlags(two), '--dry-run'])
    expect(text.stdout).toContain('url_code "page" is taken on this server')
    for (const args of [[], ['--yes']]) {
      const refused = await svc(['admin', 'import', file, ...targetFlags(two), ...args])
      expect(refused.code, refused.stderr).toBe(1)
      expect(refused.stderr).toContain('3 values of the export are taken on this server; nothing was written')
      expect(refused.stderr).toContain('connector "Weather": code "weather" is taken')
    }
    const json = await svc(['admin', 'import', file, ...targetFlags(two), '--yes', '--json'])
    expect(json.code).toBe(1)
    expect(json.json.error.details.collisions).toHaveLength(3)
    expect((await svc(['admin', 'account', 'list', ...targetFlags(two), '--json'])).json).toEqual(accountsBefore)
  })

  it('after renaming the colliding things it imports, and every resource reads back as on the first server', async () => {
    const z = two.users.zed!.token
    const theirs = (path: string) => call(two.app, z, 'GET', path).then((r) => r.json as {id: number | string}[])
    ok(await call(two.app, z, 'PATCH', `/svc/apps/${(await theirs('/svc/apps.json'))[0]!.id}.json`, {app: {url_code: 'their-page'}}))
    ok(await call(two.app, z, 'PATCH', `/svc/resources/${(await theirs('/svc/resources.json'))[0]!.id}.json`, {resource: {code: 'their-weather'}}))
    ok(await call(two.app, z, 'PATCH', `/svc/dbs/${(await theirs('/svc/dbs.json'))[0]!.id}.json`, {db: {code: 'their-books'}}))
    const noYes = await svc(['admin', 'import', file, ...targetFlags(two)])
    expect(noYes.code).toBe(2)
    expect(noYes.stderr).toContain('--yes')
    const r = await svc(['admin', 'import', file, ...targetFlags(two), '--yes', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json).toMatchObject({account: {name: 'acme', new: true}, tokens: 'left out', records_rewritten: 1, tables: {db_records: 6, tokens: 0, users: 2}})
    const accountId = r.json.account.id as number
    expect(accountId).not.toBe(one.accounts.acme)

    // The source's tokens were left out: they do not sign in here; a new one is issued by the admin.
    expect((await call(two.app, one.users.admin!.token, 'GET', '/svc/me.json')).status).toBe(401)
    const issued = await svc(['admin', 'user', 'token', 'admin', '--account', String(accountId), ...targetFlags(two), '--yes', '--json'])
    expect(issued.code, issued.stderr).toBe(0)
    const after = await readAccount(two.app, issued.json.token)

    expect(withoutIds(after)).toEqual(expectedOn(after, before))
    // References point at the new rows: the team prompt at the new ops team, records' owner at the new alice, the grid setting at the new db, the selection at the new dashboard.
    const me = after['/svc/me.json'] as {id: number; team_ids: number[]; department_ids: number[]; account: {id: number}}
    expect(me.account.id).toBe(accountId)
    const users = after['/svc/users.json'] as {id: number; login: string}[]
    const newAlice = users.find((u) => u.login === 'alice')!.id
    expect(newAlice).not.toBe(aliceId)
    expect((after['prompt ops_hello'] as {scope_id: number}).scope_id).toBe(me.team_ids[0])
    expect((after['prompt eng_hello'] as {scope_id: number}).scope_id).toBe(me.department_ids[0])
    expect((after['records notes'] as {data: {owner: string}}[])[0]!.data.owner).toBe(String(newAlice))
    const notesId = (after['/svc/dbs.json'] as {id: number; code: string}[]).find((d) => d.code === 'notes')!.id
    expect(settingsKeysOf(after).sort()).toEqual([`grid:${notesId}:`, 'theme'])
    expect(after['/account/db_triggers.json']).toEqual([expect.objectContaining({db_id: notesId, ops: ['create'], target_code: 'tally'})])
    const widgets = after['/toolkit/dashboards/widgets.json?context=main'] as {current_id: number}
    expect(widgets.current_id).toBe((after['/toolkit/dashboards.json'] as {id: number}[])[0]!.id)
    // The connector's secret was left out (no passphrase), as in backups.
    expect((after['/svc/resources.json'] as {code: string; has_secret_token?: boolean}[]).find((x) => x.code === 'weather')).toMatchObject({has_secret_token: false})
    // New rows of the imported account take ids past the imported ones.
    ok(await call(two.app, issued.json.token, 'POST', '/svc/prompts.json', {prompt: {name: 'New', code: 'new', content: 'x'}}))
    ok(await call(two.app, issued.json.token, 'POST', `/svc/dbs/${notesId}/records.json`, {record: {data: {text: 'more'}}}))
    // The other account on server two is untouched.
    expect((await call(two.app, z, 'GET', '/svc/prompts.json')).json).toEqual([])
  })

  it('the same export again into the same server collides on its ids; an account that holds data is refused', async () => {
    const again = await svc(['admin', 'import', file, ...targetFlags(two), '--dry-run', '--json'])
    expect(again.code).toBe(0)
    const kinds = new Set((again.json.collisions as {kind: string}[]).map((c) => c.kind))
    expect([...kinds].sort()).toEqual(['app_id', 'app_url_code', 'connector_code', 'flow_run_id', 'prompt_id', 'public_db_code'])
    const full = await svc(['admin', 'import', file, ...targetFlags(two), '--account', String(two.accounts.zeta), '--dry-run'])
    expect(full.code).toBe(2)
    expect(full.stderr).toContain('already holds data')
    const none = await svc(['admin', 'import', file, ...targetFlags(two), '--account', '999', '--dry-run'])
    expect(none.code).toBe(4)
  })

  it('seeds a fresh server: --with-tokens carries the tokens, --account fills an empty account; archives of the other kind are refused', async () => {
    let fresh: Target = {dataDir: join(tempDir(), 'fresh')}
    if (pg) {
      const db = await createTestDatabase()
      drops.push(db.drop)
      fresh = {dataDir: tempDir(), databaseUrl: db.url}
    }
    const dry = await svc(['admin', 'import', file, ...targetFlags(fresh), '--dry-run', '--json'])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.json.collisions).toEqual([])
    if (!pg) expect(existsSync(join(fresh.dataDir, 'svc.sqlite'))).toBe(false)
    const r = await svc(['admin', 'import', file, ...targetFlags(fresh), '--with-tokens', '--yes', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json).toMatchObject({tokens: 'carried', tables: {tokens: 2}})
    const {app, close} = await appOver(fresh)
    try {
      // The source's own tokens sign in on the seeded server (their hashes were carried).
      const seeded = await readAccount(app, one.users.admin!.token)
      expect(withoutIds(seeded)).toEqual(expectedOn(seeded, before))
      expect((await call(app, one.users.alice!.token, 'GET', '/svc/me.json')).json).toMatchObject({login: 'alice'})
    } finally {
      await close()
    }

    // On a terminal the import asks first (No writes nothing), and shows a bar of the archive read.
    const asked = join(tempDir(), 'asked')
    const no = await svcTty(['admin', 'import', file, '--data', asked], {keys: 'n\r', columns: 100})
    expect(plain(no.output)).toContain('Import ')
    expect(plain(no.output)).toContain('Nothing imported.')
    expect(existsSync(join(asked, 'svc.sqlite'))).toBe(false)
    const yes = await svcTty(['admin', 'import', file, '--data', asked], {keys: 'y\r', columns: 100})
    expect(yes.code, yes.output).toBe(0)
    expect(plain(yes.output)).toMatch(/Importing \[.*\] \d+% \| \d+ KB of \d+ KB/)
    expect(plain(yes.output)).toContain('Imported ')

    // An empty account made by hand receives it under its own id.
    const empty: Target = {dataDir: join(tempDir(), 'empty')}
    const made = await svc(['admin', 'account', 'create', 'target', '--data', empty.dataDir, '--json'])
    expect(made.code, made.stderr).toBe(0)
    const into = await svc(['admin', 'import', file, '--data', empty.dataDir, '--account', String(made.json.id), '--yes', '--json'])
    expect(into.code, into.stderr).toBe(0)
    expect(into.json.account).toEqual({id: made.json.id, name: 'target', new: false})

    const restoreExport = await svc(['admin', 'restore', file, '--data', join(tempDir(), 'x')])
    expect(restoreExport.code).toBe(2)
    expect(restoreExport.stderr).toContain('svc admin import')
    const whole = join(files, 'whole.svcbak')
    expect((await svc(['admin', 'backup', ...targetFlags(one), '--out', whole])).code).toBe(0)
    const restoredTty = await svcTty(['admin', 'restore', whole, '--data', join(tempDir(), 'z')], {columns: 100})
    expect(restoredTty.code, restoredTty.output).toBe(0)
    expect(plain(restoredTty.output)).toMatch(/Restoring \[.*\] \d+% \| \d+ KB of \d+ KB/)
    const importBackup = await svc(['admin', 'import', whole, '--data', join(tempDir(), 'y'), '--dry-run'])
    expect(importBackup.code).toBe(2)
    expect(importBackup.stderr).toContain('svc admin restore')
  })
})
