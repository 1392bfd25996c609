import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'
import {insertApp} from './helpers.js'

const LAYOUT = [
  {key: 'kpi'},
  {key: 'todo'},
  {key: 'activity', size: 'quarter', config: {scope: 'mine'}},
  {key: 'crm_deals', size: 'three_quarters', config: {limit: '20', filter: 'open'}},
  {key: 'quick_actions', size: 'quarter', config: {custom_name: 'Wiki', custom_url: 'javascript:alert(1)'}},
  {key: 'nope'},
]

// Each test runs the real binary several times; on a loaded two-core machine a call can take seconds.
describe('svc dashboard', {timeout: 180_000}, () => {
  const data = tempDir()
  const files = tempDir()
  const layoutFile = join(files, 'layout.json')
  const badFile = join(files, 'bad.json')
  let adminToken = ''
  let aliceToken = ''
  let server: ServeProcess | undefined
  let mine = 0
  let company = 0
  let appId = ''

  beforeAll(async () => {
    writeFileSync(layoutFile, JSON.stringify(LAYOUT))
    writeFileSync(badFile, '{"layout": ')
    adminToken = (await svc(['admin', 'user', 'add', 'ann', '--role', 'admin', '--data', data, '--json'])).json.token
    aliceToken = (await svc(['admin', 'user', 'add', 'alice', '--role', 'user', '--permission', 'todo', '--data', data, '--json'])).json.token
    await svc(['admin', 'module', 'enable', 'crm', '--data', data, '--json'])
    appId = await insertApp(data, 1, {name: 'Weather'})
  })

  afterAll(async () => {
    await server?.stop()
  })

  it('is a topic of svc --help', async () => {
    const r = await svc(['--help'])
    expect(r.stdout).toContain('dashboard')
    const topic = await svc(['dashboard', '--help'])
    for (const cmd of ['list', 'get', 'create', 'update', 'delete', 'select', 'widgets', 'widget', 'show']) expect(topic.stdout).toContain(`dashboard ${cmd}`)
  })

  it('show draws the standard layout as a grid (embedded)', async () => {
    const r = await svc(['dashboard', 'show', '--data', data, '--width', '80'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('Standard layout (context main)')
    expect(lines[1]).toBe(`┌${'─'.repeat(78)}┐`)
    expect(r.stdout).toContain('│ Module header')
    expect(r.stdout).toContain('│ module: main')
    expect(r.stdout).toContain('│ frame: box')
    expect(r.stdout).toContain('│ Module icons')
    const crm = await svc(['dashboard', 'show', '--context', 'crm', '--data', data, '--width', '80', '--json'])
    expect(crm.json).toMatchObject({context: 'crm', current_id: 'builtin', title: 'Standard layout (context crm)'})
    expect(crm.json.layout.map((i: {key: string}) => i.key)).toEqual(['module_header', 'crm_stats', 'crm_deals', 'crm_clients', 'crm_contacts', 'crm_notes'])
  })

  it('create --layout-file normalises the layout and selects the new dashboard', async () => {
    const r = await svc(['dashboard', 'create', '--name', 'Sales', '--layout-file', layoutFile, '--data', data, '--as', 'alice', '--json'])
    expect(r.code, r.stdout).toBe(0)
    expect(r.json).toMatchObject({name: 'Sales', context: 'main', shared: false, editable: true})
    expect(r.json.layout).toEqual([
      {id: 'kpi', key: 'kpi', size: 'full', config: {}},
      {id: 'todo', key: 'todo', size: 'quarter', config: {}},
      {id: 'activity', key: 'activity', size: 'quarter', config: {scope: 'mine'}},
      {id: 'crm_deals', key: 'crm_deals', size: 'three_quarters', config: {limit: '20'}},
      {id: 'quick_actions', key: 'quick_actions', size: 'quarter', config: {custom_name: 'Wiki'}},
    ])
    mine = r.json.id
    const text = await svc(['dashboard', 'create', '--name', 'Plain', '--context', 'kb', '--data', data, '--as', 'alice'])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^Created dashboard #\d+ "Plain" \(context kb, 1 tiles\)/)
  })

  it('show draws the selected dashboard: sizes as shares of the row, with their config', async () => {
    const r = await svc(['dashboard', 'show', '--data', data, '--as', 'alice', '--width', '80'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe(`Sales #${mine} (context main, personal)`)
    expect(lines[1]).toBe(`┌${'─'.repeat(78)}┐`) // kpi: full
    expect(lines[2]).toContain('│ Counters')
    // todo + activity (two quarters) on one row
    expect(lines[4]).toBe(`┌${'─'.repeat(18)}┐┌${'─'.repeat(18)}┐`)
    expect(lines[5]).toBe(`│ TODO${' '.repeat(12)} ││ Activity${' '.repeat(8)} │`)
    expect(lines[6]).toBe(`│${' '.repeat(18)}││ scope: mine${' '.repeat(5)} │`)
    // crm_deals (three quarters) + quick_actions (quarter)
    expect(lines[8]).toBe(`┌${'─'.repeat(58)}┐┌${'─'.repeat(18)}┐`)
    expect(lines[9]).toContain('│ Recent deals')
    expect(lines[9]).toContain('│ Quick actions')
    expect(lines[10]).toContain('│ limit: 20')
    for (const line of lines.slice(1)) expect([...line].length).toBeLessThanOrEqual(80)
  })

  it('list, get, widgets and widget', async () => {
    const list = await svc(['dashboard', 'list', '--data', data, '--as', 'alice', '--json'])
    expect(list.json.map((d: {name: string}) => d.name)).toEqual(['Sales', 'Plain'])
    const kb = await svc(['dashboard', 'list', '--context', 'kb', '--data', data, '--as', 'alice'])
    expect(kb.stdout).toContain('Plain')
    expect(kb.stdout).not.toContain('Sales')
    const get = await svc(['dashboard', 'get', String(mine), '--data', data, '--as', 'alice'])
    expect(get.stdout).toContain(`#${mine} Sales (context main, personal, editable)`)
    expect(get.stdout).toContain('Recent deals')
    expect(get.stdout).toContain('three_quarters')
    const widgets = await svc(['dashboard', 'widgets', '--data', data, '--as', 'alice', '--json'])
    expect(widgets.json).toMatchObject({current_id: mine, dashboards: [{id: mine, name: 'Sales', shared: false, is_default: false}]})
    const widget = await svc(['dashboard', 'widget', 'crm_deals', '--data', data, '--json'])
    expect(widget.json).toMatchObject({key: 'crm_deals', name: 'Recent deals', config: {filter: 'open', limit: '5'}})
    const table = await svc(['dashboard', 'widget', 'quick_actions', '--data', data])
    expect(table.stdout).toContain('Quick actions (quick_actions)')
    expect(table.stdout).toMatch(/custom_url\s*│ text/)
  })

  it('errors map to exit codes: 404 → 4, 403 → 3, 422 → 5, usage → 2', async () => {
    const notFound = await svc(['dashboard', 'get', String(mine), '--data', data, '--json']) // ann: another user's personal dashboard
    expect(notFound.code).toBe(4)
    expect(notFound.json.error).toMatchObject({code: 'not_found', status: 404})
    expect((await svc(['dashboard', 'widget', 'kb_stats', '--data', data])).code).toBe(4)
    const forbidden = await svc(['dashboard', 'create', '--name', 'Co', '--shared', '--data', data, '--as', 'alice'])
    expect(forbidden.code).toBe(3)
    expect(forbidden.stderr).toContain('Error: permission "account" required')
    const invalid = await svc(['dashboard', 'create', '--name', 'x'.repeat(101), '--data', data, '--json'])
    expect(invalid.code).toBe(5)
    expect(invalid.json.error.details).toEqual({name: ['is too long (maximum is 100 characters)']})
    const defaultPersonal = await svc(['dashboard', 'create', '--name', 'x', '--default', '--data', data])
    expect(defaultPersonal.code).toBe(5)
    expect(defaultPersonal.stderr).toContain('is_default')
    expect((await svc(['dashboard', 'create', '--name', 'x', '--layout-file', badFile, '--data', data])).code).toBe(2)
    expect((await svc(['dashboard', 'create', '--name', 'x', '--layout-file', join(files, 'missing.json'), '--data', data])).code).toBe(2)
    expect((await svc(['dashboard', 'select', 'latest', '--data', data])).code).toBe(2)
    expect((await svc(['dashboard', 'update', String(mine), '--data', data, '--as', 'alice'])).code).toBe(2)
    expect((await svc(['dashboard', 'list', '--context', 'toolkit', '--data', data])).code).toBe(2)
  })

  it('against svc serve: a company default made remotely is what another user is shown', async () => {
    server = await svcServe(data)
    const remote = (token: string) => ['--url', server!.url, '--token', token]
    writeFileSync(layoutFile, JSON.stringify([{key: 'module_header', config: {module: 'main'}}, {key: `svc_app:${appId}`, size: 'full'}, {key: 'todo'}]))
    const r = await svc(['dashboard', 'create', '--name', 'Company', '--shared', '--default', '--layout-file', layoutFile, ...remote(adminToken), '--json'])
    expect(r.code, r.stdout).toBe(0)
    expect(r.json).toMatchObject({shared: true, is_default: true})
    company = r.json.id
    // Alice has chosen her own dashboard; "default" brings her to the company default.
    const sel = await svc(['dashboard', 'select', 'default', ...remote(aliceToken)])
    expect(sel.code, sel.stderr).toBe(0)
    expect(sel.stdout).toContain(`Context main now shows: Company #${company} (context main, company, default)`)
    const show = await svc(['dashboard', 'show', ...remote(aliceToken), '--width', '80'])
    expect(show.code, show.stderr).toBe(0)
    expect(show.stdout).toContain(`Company #${company} (context main, company, default)`)
    expect(show.stdout).toContain('│ Module header')
    expect(show.stdout).toContain('│ App: Weather')
    expect(show.stdout).toContain('│ TODO')
    expect(show.stderr).toContain(`remote: ${server.url}`)
    const builtin = await svc(['dashboard', 'select', 'builtin', ...remote(aliceToken), '--json'])
    expect(builtin.json).toMatchObject({context: 'main', dashboard_id: 'builtin', current_id: 'builtin'})
    const back = await svc(['dashboard', 'select', String(mine), ...remote(aliceToken), '--json'])
    expect(back.json).toMatchObject({dashboard_id: mine, current_id: mine})
  })

  it('update and delete (remote); deleting the selected dashboard reverts to the company default', async () => {
    const remote = (token: string) => ['--url', server!.url, '--token', token]
    writeFileSync(layoutFile, JSON.stringify({layout: [{key: 'ai_request', id: 'ask'}]}))
    const up = await svc(['dashboard', 'update', String(mine), '--name', 'Renamed', '--layout-file', layoutFile, ...remote(aliceToken), '--json'])
    expect(up.code, up.stdout).toBe(0)
    expect(up.json).toMatchObject({id: mine, name: 'Renamed', layout: [{id: 'ask', key: 'ai_request', size: 'half', config: {}}]})
    expect((await svc(['dashboard', 'update', String(company), '--name', 'x', ...remote(aliceToken)])).code).toBe(3)
    const off = await svc(['dashboard', 'update', String(company), '--no-default', ...remote(adminToken), '--json'])
    expect(off.json.is_default).toBe(false)
    const on = await svc(['dashboard', 'update', String(company), '--default', ...remote(adminToken), '--json'])
    expect(on.json.is_default).toBe(true)
    const del = await svc(['dashboard', 'delete', String(mine), '--yes', ...remote(aliceToken)])
    expect(del.code, del.stderr).toBe(0)
    expect(del.stdout).toContain(`Deleted dashboard #${mine}`)
    const w = await svc(['dashboard', 'widgets', ...remote(aliceToken), '--json'])
    expect(w.json.current_id).toBe(company)
    // The embedded backend sees the same data while the server runs.
    const local = await svc(['dashboard', 'widgets', '--data', data, '--as', 'alice', '--json'])
    expect(local.json.current_id).toBe(company)
    expect((await svc(['dashboard', 'delete', String(company), '--yes', '--data', data, '--json'])).json).toEqual({id: company, deleted: true})
    const after = await svc(['dashboard', 'show', ...remote(aliceToken), '--json'])
    expect(after.json.current_id).toBe('builtin')
  })
})
