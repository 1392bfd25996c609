// Issue 40 N1: a read-only token (svc admin user token --read-only) or a read-only connection
// (X-Svc-Read-Only) hands over to a read-only app sign-in: the app's page opens, but its private
// action, `{user_id}` public writes and every other write through that sign-in are refused (403)
// and nothing is written. A full token still hands over to a full sign-in. Both transports.
import {expect, it} from 'vitest'
import {READ_ONLY_TOKEN} from '../../src/store/accounts/types.js'
import {openApp} from '../helpers/app-origin.js'
import {describeBothTransports, type Ctx} from '../helpers/scenarios.js'

const host = (ctx: Ctx, label: string) => {
  const port = new URL(ctx.transport.origin).port
  return `http://${label}.localhost${port ? `:${port}` : ''}`
}
const SAME_ORIGIN_FETCH = {'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty'}
const JSON_TYPE = {'content-type': 'application/json'}

describeBothTransports('a read-only token through an app', undefined, (ctx) => {
  let readToken = ''
  let mineId = 0

  it('setup: a private app with a private action and a db written as {user_id}', async () => {
    const db = await ctx().call('POST', '/svc/dbs.json', {body: {db: {name: 'Mine', code: 'mine', schema: {fields: {text: 'string', owner: 'string'}},
      public_methods: {create: {allowed_fields: ['text'], auto_fields: {owner: '{user_id}'}}, list: {scope_by: 'owner'},
        update: {scope_by: 'owner', allowed_fields: ['text']}, delete: {scope_by: 'owner'}}}}})
    expect(db.status, db.text).toBe(201)
    mineId = db.json.id
    const flow = await ctx().call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_flow', code: 'stamp', name: 'stamp',
      fields: {program: [{type: 'mutation', set: {stamped: 'yes'}}]}}}})
    expect(flow.status, flow.text).toBe(201)
    const app = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'Mine', url_code: 'mine-app', app_engine: 'html', css_engine: 'none',
      public: false, db_code: 'mine', source_code: '<p>mine</p>', actions: [{action: 'stamp', flow_code: 'stamp', public: false}]}}})
    expect(app.status, app.text).toBe(201)
    readToken = await ctx().world.store.accounts.createToken(ctx().world.users.alice!.id, READ_ONLY_TOKEN)
  })

  const runs = async () => (await ctx().call('GET', '/connect/flow_processes.json?flow_code=stamp')).json as unknown[]
  const records = async () => (await ctx().call('GET', `/svc/dbs/${mineId}/records.json?limit=100`)).json as unknown[]

  /** The writes an app page can make on its origin, with the sign-in's cookie. */
  const writes = (ctx: Ctx, appId: string, cookie: string) => {
    const at = host(ctx, 'mine-app')
    const headers = {...SAME_ORIGIN_FETCH, ...JSON_TYPE, cookie}
    return {
      action: () => ctx.transport.fetch(`${at}/svc/apps/${appId}/action/stamp`, {method: 'POST', headers, body: '{}'}),
      create: () => ctx.transport.fetch(`${at}/svc/db/mine/create`, {method: 'POST', headers, body: JSON.stringify({data: {text: 'as alice'}})}),
      createByGet: () => ctx.transport.fetch(`${at}/svc/db/mine/create?text=as%20alice`, {headers}),
      list: () => ctx.transport.fetch(`${at}/svc/db/mine/list`, {headers}),
    }
  }

  for (const [way, headers] of [
    ['a read-only token', () => ({authorization: `Bearer ${readToken}`})],
    ['a read-only connection (X-Svc-Read-Only)', (ctx: Ctx) => ({authorization: `Bearer ${ctx.world.users.alice!.token}`, 'x-svc-read-only': '1'})],
  ] as const) {
    it(`${way} opens the app, and every write through its sign-in is refused; nothing is written`, async () => {
      const opened = await openApp(ctx().transport, '/a/mine-app', headers(ctx()))
      expect(opened.res.status, opened.html.slice(0, 200)).toBe(200)
      expect(opened.html).toContain('<p>mine</p>')
      expect(opened.cookie).toMatch(/svc_app_session=/)
      const appId = (await ctx().call('GET', '/svc/apps.json')).json.find((a: {url_code: string}) => a.url_code === 'mine-app').id
      const w = writes(ctx(), appId, opened.cookie)
      const [runsBefore, recordsBefore] = [(await runs()).length, (await records()).length]
      for (const [name, write] of [['action', w.action], ['create', w.create], ['create by GET', w.createByGet]] as const) {
        const r = await write()
        expect(r.status, `${name}: ${await r.clone().text()}`).toBe(403)
        expect(await r.json()).toEqual({error: 'read-only: this token may not change anything'})
      }
      expect((await runs()).length).toBe(runsBefore)
      expect((await records()).length).toBe(recordsBefore)
      // Reading through it still works.
      expect((await w.list()).status).toBe(200)
    })
  }

  it('a full token still hands over to a full sign-in: the action runs and {user_id} writes go through', async () => {
    const opened = await openApp(ctx().transport, '/a/mine-app', {authorization: `Bearer ${ctx().world.users.alice!.token}`})
    expect(opened.res.status).toBe(200)
    const appId = (await ctx().call('GET', '/svc/apps.json')).json.find((a: {url_code: string}) => a.url_code === 'mine-app').id
    const w = writes(ctx(), appId, opened.cookie)
    expect((await w.action()).status).toBe(200)
    const made = await w.create()
    expect(made.status, await made.clone().text()).toBe(201)
    expect((await made.json()).data.owner).toBe(String(ctx().world.users.alice!.id))
  })
})
