// The roles matrix (src/core/auth/permissions.ts, docs/security.md "Roles") as one table: every
// write of every resource by guest, user, manager and admin of one account, over both transports.
// Expected statuses are written out here, not derived from the code under test.
import {expect, it} from 'vitest'
import {ACTIONS, can, ROLES, type Action, type Role} from '../../src/core/auth/permissions.js'
import {describeBothTransports, type Ctx} from '../helpers/scenarios.js'

const SEED = {
  accounts: ['acme'],
  users: [
    {login: 'admin', role: 'admin' as const},
    {login: 'manager', role: 'manager' as const},
    {login: 'user', role: 'user' as const},
    {login: 'guest', role: 'guest' as const},
  ],
}

type Row = {
  what: string
  /** Expected status per role. */
  expect: Record<Role, number>
  /** Sends the request as `login`; `n` makes codes unique per call. */
  run(ctx: Ctx, login: string, n: number): Promise<{status: number; text: string}>
}

const W = {guest: 403, user: 201, manager: 201, admin: 201}
const M = {guest: 403, user: 403, manager: 201, admin: 201}
const A = {guest: 403, user: 403, manager: 403, admin: 201}
const R = {guest: 200, user: 200, manager: 200, admin: 200}

let seq = 0
const ids: Record<string, number | string> = {}

const MATRIX: Row[] = [
  {what: 'read prompts', expect: R, run: (c, as) => c.call('GET', '/svc/prompts.json', {as})},
  {what: 'read dbs', expect: R, run: (c, as) => c.call('GET', '/svc/dbs.json', {as})},
  {what: 'read records', expect: R, run: (c, as) => c.call('GET', `/svc/dbs/${ids.db}/records.json`, {as})},
  {what: 'read apps', expect: R, run: (c, as) => c.call('GET', '/svc/apps.json', {as})},
  {what: 'read connectors and flows', expect: R, run: (c, as) => c.call('GET', '/svc/resources.json', {as})},
  {what: 'read crons', expect: R, run: (c, as) => c.call('GET', '/account/crons.json', {as})},
  {what: 'read dashboards', expect: R, run: (c, as) => c.call('GET', '/toolkit/dashboards.json', {as})},
  {what: 'create an own (user scope) prompt', expect: W,
    run: (c, as, n) => c.call('POST', '/svc/prompts.json', {as, body: {prompt: {name: 'p', code: `p${n}`, content: 'x', scope: 'user'}}})},
  {what: 'create an account-wide prompt', expect: W,
    run: (c, as, n) => c.call('POST', '/svc/prompts.json', {as, body: {prompt: {name: 'p', code: `a${n}`, content: 'x'}}})},
  {what: 'create an account-wide <code>_extra prompt', expect: W,
    run: (c, as, n) => c.call('POST', '/svc/prompts.json', {as, body: {prompt: {name: 'p', code: `e${n}_extra`, content: 'x'}}})},
  {what: 'create a personal dashboard (not shared state)', expect: {guest: 201, user: 201, manager: 201, admin: 201},
    run: (c, as) => c.call('POST', '/toolkit/dashboards.json', {as, body: {dashboard: {name: 'mine'}}})},
  {what: 'create a company dashboard', expect: A,
    run: (c, as) => c.call('POST', '/toolkit/dashboards.json', {as, body: {dashboard: {name: 'company', shared: true}}})},
  {what: 'create a db', expect: M, run: (c, as, n) => c.call('POST', '/svc/dbs.json', {as, body: {db: {name: 'd', code: `d${n}`}}})},
  {what: 'change public_methods of a db', expect: {guest: 403, user: 403, manager: 200, admin: 200},
    run: (c, as) => c.call('PATCH', `/svc/dbs/${ids.db}.json`, {as, body: {db: {public_methods: {create: true}}}})},
  {what: 'replace in a db schema', expect: {guest: 403, user: 403, manager: 200, admin: 200},
    run: (c, as) => c.call('PATCH', `/svc/dbs/${ids.db}/replace.json`, {as, body: {field: 'public_methods', old_string: 'true', new_string: 'true'}})},
  {what: 'delete a db', expect: {guest: 403, user: 403, manager: 204, admin: 204}, run: async (c, as, n) => {
    const made = await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'gone', code: `gone${n}`}}})
    return c.call('DELETE', `/svc/dbs/${made.json.id}.json`, {as})
  }},
  {what: 'create a record', expect: W,
    run: (c, as) => c.call('POST', `/svc/dbs/${ids.db}/records.json`, {as, body: {record: {data: {text: 'r'}}}})},
  {what: 'delete a record', expect: {guest: 403, user: 204, manager: 204, admin: 204}, run: async (c, as) => {
    const made = await c.call('POST', `/svc/dbs/${ids.db}/records.json`, {body: {record: {data: {text: 'r'}}}})
    return c.call('DELETE', `/svc/dbs/${ids.db}/records/${made.json.id}.json`, {as})
  }},
  {what: 'create an app', expect: W, run: (c, as, n) => c.call('POST', '/svc/apps.json', {as,
    body: {app: {name: 'a', url_code: `roles-app-${c.transport.name}-${n}`, app_engine: 'html', css_engine: 'none', source_code: '<p>a</p>'}}})},
  {what: 'create a connector', expect: W, run: (c, as, n) => c.call('POST', '/svc/resources.json', {as,
    body: {resource: {kind: 'svc/custom_connector', code: `conn_${c.transport.name.replace('-', '_')}_${n}`, name: 'c', url: 'http://127.0.0.1:9', fields: {methods: []}}}})},
  {what: 'run a flow by hand', expect: W, run: (c, as) => c.call('POST', `/svc/resources/${ids.flow}/run.json`, {as, body: {input: {}}})},
  {what: 'create a cron', expect: A, run: (c, as) => c.call('POST', '/account/crons.json', {as,
    body: {cron: {target_code: `${ids.flowCode}`, schedule: '0 8 * * *'}}})},
  {what: 'enable a module', expect: {guest: 403, user: 403, manager: 403, admin: 200},
    run: (c, as) => c.call('POST', '/account/set_field.json?key=account.settings.modules&action_type=add&value=crm', {as})},
]

describeBothTransports('roles matrix', SEED, (ctx) => {
  it('setup: a db, a flow', async () => {
    const db = await ctx().call('POST', '/svc/dbs.json', {body: {db: {name: 'Shared', code: 'shared'}}})
    expect(db.status, db.text).toBe(201)
    ids.db = db.json.id
    ids.flowCode = `flow_${ctx().transport.name.replace('-', '_')}`
    const flow = await ctx().call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_flow', code: ids.flowCode, name: 'f',
      fields: {program: [{type: 'mutation', set: {ok: 'yes'}}]}}}})
    expect(flow.status, flow.text).toBe(201)
    ids.flow = flow.json.id
  })

  for (const row of MATRIX) {
    it(row.what, async () => {
      const got: Record<string, number> = {}
      for (const role of ['guest', 'user', 'manager', 'admin'] as const) {
        const r = await row.run(ctx(), role, ++seq)
        got[role] = r.status
        if (r.status >= 500) throw new Error(`${row.what} as ${role}: ${r.status} ${r.text}`)
      }
      expect(got).toEqual(row.expect)
    })
  }
})

it('the table itself: guests only read; every action names a role; admin may do everything', () => {
  for (const action of Object.keys(ACTIONS) as Action[]) {
    expect(can({role: 'admin', permissions: []}, action)).toBe(true)
    expect(can({role: 'guest', permissions: []}, action), action).toBe(action === 'read' || action === 'dashboard.write')
    for (const role of ROLES) expect(typeof can({role, permissions: []}, action)).toBe('boolean')
  }
  // A permission opens what the spec ties to it, and nothing else.
  expect(can({role: 'user', permissions: ['account']}, 'dashboard.write_company')).toBe(true)
  expect(can({role: 'user', permissions: ['account']}, 'cron.write')).toBe(true)
  expect(can({role: 'user', permissions: ['account']}, 'db.manage')).toBe(false)
  expect(can({role: 'user', permissions: ['account']}, 'connector.repoint')).toBe(false)
})
