// Issue 24 L4 and L5: an app origin answers only the db its app declares (`db_code`), not every db of
// its account; and a private app action needs what running the flow directly needs (role user or
// higher: a guest is 403 both ways). Both transports; app hosts are reached with their Host.
import {expect, it} from 'vitest'
import {describeBothTransports, type Ctx} from '../helpers/scenarios.js'
import {openApp} from '../helpers/app-origin.js'

const SEED = {
  accounts: ['acme', 'other'],
  users: [
    {login: 'admin', role: 'admin' as const},
    {login: 'alice', role: 'user' as const},
    {login: 'gus', role: 'guest' as const},
    {login: 'mallory', account: 'other', role: 'admin' as const},
  ],
}

const host = (ctx: Ctx, label: string) => {
  const port = new URL(ctx.transport.origin).port
  return `http://${label}.localhost${port ? `:${port}` : ''}`
}
const SAME_ORIGIN = {'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'content-type': 'application/json'}

describeBothTransports('an app origin reaches its own db only; private actions follow the roles table (issue 24 L4, L5)', SEED, (ctx) => {
  let shopId: string
  let flowId: number

  it('setup: two public dbs of one account, an app declaring one of them, an app declaring none', async () => {
    for (const code of ['orders', 'notes']) {
      const db = await ctx().call('POST', '/svc/dbs.json', {body: {db: {name: code, code, schema: {fields: {text: 'string', owner: 'string'}},
        public_methods: {list: true, create: {allowed_fields: ['text'], auto_fields: {owner: '{user_id}'}}}}}})
      expect(db.status, db.text).toBe(201)
      expect((await ctx().call('POST', `/svc/dbs/${db.json.id}/records.json`, {body: {record: {data: {text: `${code} record`}}}})).status).toBe(201)
    }
    const flow = await ctx().call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_flow', code: 'stamp', name: 'stamp',
      fields: {program: [{type: 'mutation', set: {stamped: 'yes'}}]}}}})
    expect(flow.status, flow.text).toBe(201)
    flowId = flow.json.id
    const shop = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'Shop', url_code: 'shop', app_engine: 'html', css_engine: 'none',
      public: false, db_code: 'orders', source_code: '<p>shop</p>', actions: [{action: 'stamp', flow_code: 'stamp', public: false}]}}})
    expect(shop.status, shop.text).toBe(201)
    shopId = shop.json.id
    const bare = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'Bare', url_code: 'bare', app_engine: 'html', css_engine: 'none',
      public: true, source_code: '<p>bare</p>'}}})
    expect(bare.status, bare.text).toBe(201)
  })

  it('L4: the app\'s own db answers on its origin; another db of the same account is 404 there, with or without a sign-in', async () => {
    const session = await ctx().world.store.accounts.createToken(ctx().world.users.admin!.id, 'session', 3600)
    const opened = await openApp(ctx().transport, '/a/shop', {cookie: `svc_session=${session}`})
    expect(opened.res.status).toBe(200)
    for (const headers of [{}, {cookie: opened.cookie}]) {
      const own = await ctx().transport.fetch(`${host(ctx(), 'shop')}/svc/db/orders/list`, {headers: {...headers, ...SAME_ORIGIN}})
      expect(own.status).toBe(200)
      expect((await own.json()).map((r: {data: {text: string}}) => r.data.text)).toEqual(['orders record'])
      for (const path of ['/svc/db/notes/list', '/svc/db/notes/create?data[text]=x']) {
        const other = await ctx().transport.fetch(`${host(ctx(), 'shop')}${path}`, {headers: {...headers, ...SAME_ORIGIN}})
        expect(other.status, path).toBe(404)
        expect(await other.text()).not.toContain('notes record')
      }
    }
    // An app that declares no db reaches none.
    for (const code of ['orders', 'notes']) expect((await ctx().transport.fetch(`${host(ctx(), 'bare')}/svc/db/${code}/list`)).status).toBe(404)
    // The main origin still answers every public db (the spec's `/svc/db/:db_code/:method_name`).
    expect((await ctx().call('GET', '/svc/db/notes/list', {as: null})).status).toBe(200)
    expect((await ctx().call('GET', '/svc/db/notes/create?data[text]=x', {as: null})).status).toBe(201)
  })

  it('L5: a guest may neither run the flow nor the app\'s private action; a user may do both', async () => {
    const action = (as: string) => ctx().call('POST', `/svc/apps/${shopId}/action/stamp`, {as, body: {}})
    const run = (as: string) => ctx().call('POST', `/svc/resources/${flowId}/run.json`, {as, body: {}})
    expect((await run('gus')).status).toBe(403)
    const guestAction = await action('gus')
    expect(guestAction.status, guestAction.text).toBe(403)
    expect(guestAction.json.error).toMatch(/role user/)
    expect((await run('alice')).status).toBe(201)
    expect((await action('alice')).status).toBe(200)
    // On the app origin, with the guest's app-scoped sign-in: the page opens (guests read), the action does not run.
    const session = await ctx().world.store.accounts.createToken(ctx().world.users.gus!.id, 'session', 3600)
    const opened = await openApp(ctx().transport, '/a/shop', {cookie: `svc_session=${session}`})
    expect(opened.res.status).toBe(200)
    const onOrigin = await ctx().transport.fetch(`${host(ctx(), 'shop')}/svc/apps/${shopId}/action/stamp`,
      {method: 'POST', headers: {cookie: opened.cookie, ...SAME_ORIGIN}, body: '{}'})
    expect(onOrigin.status).toBe(403)
    // Only alice's two runs were made.
    expect(((await ctx().call('GET', '/connect/flow_processes.json')).json as unknown[]).length).toBe(2)
  })
})
