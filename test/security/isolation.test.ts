// Cross-account and cross-user isolation for every resource, through both transports: mallory
// (account "other", an admin there) gets 404 for every id of acme and never sees acme's rows in a
// list; alice (acme, a plain user) cannot see or change admin's own prompt and personal dashboard.
// Public db methods with scope_by: two cookie jars never see each other's records, a forged or
// altered cookie is a new visitor.
import {beforeAll, expect, it} from 'vitest'
import {describeBothTransports, type Ctx} from '../helpers/scenarios.js'
import {createFixtures, MARKER, type Fixtures} from './fixtures.js'

const SEED = {
  accounts: ['acme', 'other'],
  users: [
    {login: 'admin', role: 'admin' as const},
    {login: 'alice', role: 'user' as const},
    {login: 'mallory', account: 'other', role: 'admin' as const},
  ],
}

/** Every request on acme's ids that another account must find absent (404). */
function foreignRequests(f: Fixtures): [string, string, unknown?][] {
  return [
    ['GET', `/svc/prompts/${f.accountPrompt}.json`],
    ['GET', `/svc/prompts/${f.accountPrompt}.md`],
    ['PATCH', `/svc/prompts/${f.accountPrompt}.json`, {prompt: {name: 'x'}}],
    ['DELETE', `/svc/prompts/${f.accountPrompt}.json`],
    ['GET', `/toolkit/dashboards/${f.companyDashboard}.json`],
    ['PATCH', `/toolkit/dashboards/${f.companyDashboard}.json`, {dashboard: {name: 'x'}}],
    ['DELETE', `/toolkit/dashboards/${f.personalDashboard}.json`],
    ['GET', `/svc/apps/${f.app}.json`],
    ['PATCH', `/svc/apps/${f.app}.json`, {app: {name: 'x'}}],
    ['PATCH', `/svc/apps/${f.app}/replace.json`, {field: 'source_code', old_string: 'p>', new_string: 'b>', replace_all: true}],
    ['DELETE', `/svc/apps/${f.app}.json`],
    ['POST', `/svc/apps/${f.app}/action/note`, {}],
    ['GET', `/svc/dbs/${f.db}.json`],
    ['GET', `/svc/dbs/${f.dbCode}.json`],
    ['PATCH', `/svc/dbs/${f.db}.json`, {db: {name: 'x'}}],
    ['PATCH', `/svc/dbs/${f.db}/replace.json`, {fields: {}, replace_all: true}],
    ['DELETE', `/svc/dbs/${f.db}.json`],
    ['GET', `/svc/dbs/${f.db}/records.json`],
    ['POST', `/svc/dbs/${f.db}/records.json`, {record: {data: {name: 'x'}}}],
    ['GET', `/svc/dbs/${f.db}/records/${f.record}.json`],
    ['PATCH', `/svc/dbs/${f.db}/records/${f.record}.json`, {record: {data: {name: 'x'}}}],
    ['DELETE', `/svc/dbs/${f.db}/records/${f.record}.json`],
    ['GET', `/svc/dbs/${f.db}/search.json?q=Ada`],
    ['GET', `/svc/dbs/${f.db}/usage.json`],
    ['GET', `/svc/resources/${f.connector}.json`],
    ['PATCH', `/svc/resources/${f.connector}.json`, {resource: {url: 'http://127.0.0.1:1'}}],
    ['DELETE', `/svc/resources/${f.flow}.json`],
    ['POST', `/svc/resources/${f.flow}/run.json`, {}],
    ['GET', `/account/crons/${f.cron}.json`],
    ['PATCH', `/account/crons/${f.cron}.json`, {cron: {active: true}}],
    ['DELETE', `/account/crons/${f.cron}.json`],
    ['POST', `/account/crons/${f.cron}/run.json`, {}],
  ]
}

const LISTS = ['/svc/prompts.json', '/toolkit/dashboards.json', '/toolkit/dashboards/widgets.json?context=crm', '/svc/apps.json', '/svc/dbs.json',
  '/svc/resources.json', '/account/crons.json', '/connect/flow_processes.json']

describeBothTransports('isolation', SEED, (ctx) => {
  let f: Fixtures
  beforeAll(async () => {
    f = await createFixtures(ctx())
    // A finished run of acme's flow, so the runs list has something to leak.
    expect((await ctx().call('POST', `/svc/resources/${f.flow}/run.json`, {body: {}})).status).toBeLessThan(300)
  })

  it('another account gets 404 for every id of acme, and nothing changes', async () => {
    for (const [method, path, body] of foreignRequests(f)) {
      const r = await ctx().call(method, path, {as: 'mallory', body})
      expect(r.status, `${method} ${path} → ${r.text.slice(0, 200)}`).toBe(404)
      expect(r.text).not.toContain(MARKER)
    }
    for (const [method, path] of foreignRequests(f).filter(([m, p]) => m === 'GET' && !p.includes('search'))) {
      expect((await ctx().call(method, path)).status, `${path} still there for acme`).toBe(200)
    }
  })

  it("lists of another account never hold acme's rows", async () => {
    for (const path of LISTS) {
      const r = await ctx().call('GET', path, {as: 'mallory'})
      expect(r.status, path).toBe(200)
      expect(r.text, path).not.toContain(MARKER)
      expect(r.text, path).not.toContain('acme_prompt')
    }
    const mine = await ctx().call('GET', '/connect/flow_processes.json')
    expect(mine.text).toContain('note')
  })

  it("another account cannot open acme's private app page or read its flow runs", async () => {
    const page = await ctx().call('GET', '/a/acme-app', {as: 'mallory'})
    // A non-member is sent to sign in (the http transport follows the redirect, in-process does not).
    if (page.status === 302) expect(page.headers.get('location')).toMatch(/login/)
    else expect(page.text).toContain('<title>Sign in</title>')
    expect(page.text).not.toContain(MARKER)
    // The private action: its run id is no capability for another account (a public action's is, by design).
    const run = await ctx().call('POST', `/svc/apps/${f.app}/action/note`, {as: 'admin', body: {}})
    expect(run.status, run.text).toBeLessThan(300)
    const pid = run.json.flow_process_id ?? run.json.id
    expect(typeof pid).toBe('string')
    for (const path of [`/connect/flow_processes/${pid}.json`, `/svc/apps/${f.app}/action/note/status?flow_process_id=${pid}`]) {
      const r = await ctx().call('GET', path, {as: 'mallory'})
      expect(r.status, `${path} → ${r.text.slice(0, 200)}`).toBe(404)
    }
    expect((await ctx().call('GET', `/connect/flow_processes/${pid}.json`)).status).toBe(200)
  })

  it("a user of the same account cannot read or change another user's own prompt and personal dashboard", async () => {
    for (const [method, path, body] of [
      ['GET', `/svc/prompts/${f.adminUserPrompt}.json`],
      ['PATCH', `/svc/prompts/${f.adminUserPrompt}.json`, {prompt: {content: 'x'}}],
      ['DELETE', `/svc/prompts/${f.adminUserPrompt}.json`],
      ['GET', `/toolkit/dashboards/${f.personalDashboard}.json`],
      ['PATCH', `/toolkit/dashboards/${f.personalDashboard}.json`, {dashboard: {name: 'x'}}],
      ['DELETE', `/toolkit/dashboards/${f.personalDashboard}.json`],
    ] as [string, string, unknown?][]) {
      const r = await ctx().call(method, path, {as: 'alice', body})
      expect(r.status, `${method} ${path}`).toBe(404)
    }
    const list = await ctx().call('GET', '/svc/prompts.json', {as: 'alice'})
    expect(list.json.map((p: {id: string}) => p.id)).toEqual([f.accountPrompt])
    // The cascade for alice skips admin's user layer: she gets the account prompt.
    const rendered = await ctx().call('GET', '/svc/prompt/acme_prompt.md', {as: 'alice'})
    expect(rendered.text).toBe(`Body ${MARKER}`)
    // Company settings need permission "account": alice may not change the company dashboard.
    expect((await ctx().call('PATCH', `/toolkit/dashboards/${f.companyDashboard}.json`, {as: 'alice', body: {dashboard: {name: 'x'}}})).status).toBe(403)
  })

  it('public db methods scope records per visitor; a forged or altered cookie is a new visitor', async () => {
    const c: Ctx = ctx()
    const visit = async (cookie: string | null, name?: string) => {
      const headers: Record<string, string> = cookie ? {cookie} : {}
      const r = name === undefined
        ? await c.call('GET', `/svc/db/${f.dbCode}/list`, {as: null, headers})
        : await c.call('POST', `/svc/db/${f.dbCode}/create`, {as: null, headers, body: {data: {name}}})
      const set = r.headers.get('set-cookie')
      return {r, cookie: set ? set.split(';')[0]! : cookie}
    }
    const a = await visit(null, 'from visitor A')
    expect(a.r.status, a.r.text).toBeLessThan(300)
    expect(a.cookie).toMatch(/=/)
    const b = await visit(null, 'from visitor B')
    expect(b.cookie).not.toBe(a.cookie)
    const listA = await visit(a.cookie)
    expect(listA.r.text).toContain('from visitor A')
    expect(listA.r.text).not.toContain('from visitor B')
    expect(listA.r.text).not.toContain(MARKER)
    const listB = await visit(b.cookie)
    expect(listB.r.text).toContain('from visitor B')
    expect(listB.r.text).not.toContain('from visitor A')

    const [name, value] = a.cookie!.split('=') as [string, string]
    const altered = `${name}=${value.slice(0, -2)}${value.endsWith('A') ? 'BB' : 'AA'}`
    const forged = `${name}=${Buffer.from('visitor-1').toString('base64url')}.forged-signature`
    for (const cookie of [altered, forged, `${name}=`, `${name}=${'x'.repeat(5000)}`]) {
      const r = await visit(cookie)
      expect(r.r.status, cookie).toBe(200)
      expect(r.r.json, cookie).toEqual([])
    }
  })
})
