// Issue 24 M1: a public db write (create, update, delete) or an app action carried by a browser's
// cookie is refused when another site's page, a link or a typed URL makes it — on an app origin
// (visitor cookie, app-scoped sign-in) and on the main origin (visitor cookie, console session).
// Same-origin fetches of the app itself, cookie-less calls and clients that send no Fetch Metadata
// (curl, scripts) keep working. Both transports; app hosts are reached with their Host.
import {expect, it} from 'vitest'
import {describeBothTransports, type Ctx} from '../helpers/scenarios.js'
import {openApp} from '../helpers/app-origin.js'

const host = (ctx: Ctx, label: string) => {
  const port = new URL(ctx.transport.origin).port
  return `http://${label}.localhost${port ? `:${port}` : ''}`
}

/** What Chromium sends for each way a request can be made. */
const SAME_ORIGIN_FETCH = {'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty'}
const CROSS_SITE_LINK = {'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-fetch-user': '?1'}
const SAME_ORIGIN_LINK = {'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document'}
const TYPED_URL = {'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-fetch-user': '?1'}
const CROSS_SITE_FRAME = {'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe'}

describeBothTransports('cross-site writes by cookie are refused (issue 24 M1)', undefined, (ctx) => {
  let notesId: number
  let appId: string

  it('setup: a public app with a db scoped per visitor and per signed-in user, and a private action', async () => {
    const db = await ctx().call('POST', '/svc/dbs.json', {body: {db: {name: 'Notes', code: 'notes', schema: {fields: {text: 'string', visitor: 'string', owner: 'string'}},
      public_methods: {
        create: {allowed_fields: ['text'], auto_fields: {visitor: '{cookie_key}', owner: '{user_id}'}},
        list: {scope_by: 'visitor'}, update: {scope_by: 'visitor', allowed_fields: ['text']}, delete: {scope_by: 'visitor'},
      }}}})
    expect(db.status, db.text).toBe(201)
    notesId = db.json.id
    const mine = await ctx().call('POST', '/svc/dbs.json', {body: {db: {name: 'Mine', code: 'mine', schema: {fields: {text: 'string', owner: 'string'}},
      public_methods: {create: {allowed_fields: ['text'], auto_fields: {owner: '{user_id}'}}, list: {scope_by: 'owner'}, delete: {scope_by: 'owner'}}}}})
    expect(mine.status, mine.text).toBe(201)
    const flow = await ctx().call('POST', '/svc/resources.json', {body: {resource: {kind: 'svc/custom_flow', code: 'stamp', name: 'stamp',
      fields: {program: [{type: 'mutation', set: {stamped: 'yes'}}]}}}})
    expect(flow.status, flow.text).toBe(201)
    const app = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'Notes', url_code: 'notes-app', app_engine: 'html', css_engine: 'none',
      public: true, db_code: 'notes', source_code: '<p>notes</p>', actions: [{action: 'stamp', flow_code: 'stamp', public: false}]}}})
    expect(app.status, app.text).toBe(201)
    appId = app.json.id
    const mineApp = await ctx().call('POST', '/svc/apps.json', {body: {app: {name: 'Mine', url_code: 'mine-app', app_engine: 'html', css_engine: 'none',
      public: true, db_code: 'mine', source_code: '<p>mine</p>'}}})
    expect(mineApp.status, mineApp.text).toBe(201)
  })

  const records = async () => (await ctx().call('GET', `/svc/dbs/${notesId}/records.json?limit=100`)).json as {id: number; data: {text: string}}[]

  it('app origin, visitor cookie: a navigation or another site\'s request cannot create, update or delete; the app\'s own fetch can', async () => {
    const at = `${host(ctx(), 'notes-app')}/svc/db/notes`
    const made = await ctx().transport.fetch(`${at}/create`, {method: 'POST', headers: {...SAME_ORIGIN_FETCH, 'content-type': 'application/json'},
      body: JSON.stringify({data: {text: 'victim note'}})})
    expect(made.status).toBe(201)
    const setCookie = made.headers.getSetCookie()[0]!
    expect(setCookie).toMatch(/^svc_visitor=/)
    expect(setCookie).toMatch(/SameSite=Strict/i)
    const jar = {cookie: setCookie.split(';')[0]!}
    const id = (await made.json()).id
    for (const [name, headers] of Object.entries({CROSS_SITE_LINK, SAME_ORIGIN_LINK, TYPED_URL, CROSS_SITE_FRAME,
      FOREIGN_ORIGIN: {origin: 'http://evil.localhost'}, NULL_ORIGIN: {origin: 'null'}, FOREIGN_REFERER: {referer: 'http://evil.example/page'},
      SAME_SITE_FETCH: {'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image'}})) {
      for (const path of [`delete?id=${id}`, `update?id=${id}&data[text]=changed`, 'create?data[text]=planted']) {
        const r = await ctx().transport.fetch(`${at}/${path}`, {headers: {...jar, ...headers}})
        expect(r.status, `${name} ${path}`).toBe(403)
        expect((await r.json()).error, name).toMatch(/cross-site|navigation/)
      }
    }
    expect((await records()).map((r) => r.data.text)).toEqual(['victim note'])
    // Reads by navigation stay open (a visitor may open a list in a tab; another site cannot read the answer).
    expect((await ctx().transport.fetch(`${at}/list`, {headers: {...jar, ...TYPED_URL}})).status).toBe(200)
    // The app's own fetch, and a client that sends no Fetch Metadata (curl with a cookie), still write.
    const updated = await ctx().transport.fetch(`${at}/update?id=${id}&data[text]=edited`, {headers: {...jar, ...SAME_ORIGIN_FETCH}})
    expect(updated.status).toBe(200)
    const curl = await ctx().transport.fetch(`${at}/update?id=${id}&data[text]=by curl`, {headers: jar})
    expect(curl.status).toBe(200)
    // A same-origin fetch POST carries the page's own Origin.
    const own = await ctx().transport.fetch(`${at}/update`, {method: 'POST', headers: {...jar, ...SAME_ORIGIN_FETCH, origin: host(ctx(), 'notes-app'),
      'content-type': 'application/json'}, body: JSON.stringify({id, data: {text: 'by the app'}})})
    expect(own.status).toBe(200)
    // Without a cookie nobody's record is at stake: an anonymous public write is what public methods are for.
    const anonymous = await ctx().transport.fetch(`${at}/create?data[text]=anonymous`, {headers: CROSS_SITE_LINK})
    expect(anonymous.status).toBe(201)
    const deleted = await ctx().transport.fetch(`${at}/delete?id=${id}`, {headers: {...jar, ...SAME_ORIGIN_FETCH}})
    expect(deleted.status).toBe(200)
  })

  it('app origin, app-scoped sign-in: a navigation cannot write as the member or run a private action', async () => {
    const session = await ctx().world.store.accounts.createToken(ctx().world.users.admin!.id, 'session', 3600)
    const opened = await openApp(ctx().transport, '/a/notes-app', {cookie: `svc_session=${session}`})
    expect(opened.cookie).toMatch(/svc_app_session=/)
    const jar = {cookie: opened.cookie}
    const action = `${host(ctx(), 'notes-app')}/svc/apps/${appId}/action/stamp`
    for (const headers of [SAME_ORIGIN_LINK, CROSS_SITE_LINK, TYPED_URL, {origin: 'http://evil.localhost'}]) {
      const r = await ctx().transport.fetch(action, {method: 'POST', headers: {...jar, ...headers, 'content-type': 'application/x-www-form-urlencoded'}, body: 'a=1'})
      expect(r.status, JSON.stringify(headers)).toBe(403)
    }
    const ran = await ctx().transport.fetch(action, {method: 'POST', headers: {...jar, ...SAME_ORIGIN_FETCH, 'content-type': 'application/json'}, body: '{}'})
    expect(ran.status).toBe(200)
    const runs = (await ctx().call('GET', '/connect/flow_processes.json')).json as unknown[]
    expect(runs.length).toBe(1)
  })

  it('main origin: the console session and the visitor cookie do not carry a write made by a navigation', async () => {
    const session = {cookie: `svc_session=${await ctx().world.store.accounts.createToken(ctx().world.users.admin!.id, 'session', 3600)}`}
    const made = await ctx().transport.fetch('/svc/db/mine/create?data[text]=admin note', {headers: {...session, ...SAME_ORIGIN_FETCH}})
    expect(made.status).toBe(201)
    const id = (await made.json()).id
    for (const headers of [CROSS_SITE_LINK, TYPED_URL, CROSS_SITE_FRAME, {origin: 'http://cats.localhost'}]) {
      expect((await ctx().transport.fetch(`/svc/db/mine/delete?id=${id}`, {headers: {...session, ...headers}})).status, JSON.stringify(headers)).toBe(403)
      expect((await ctx().transport.fetch('/svc/db/mine/create?data[text]=planted', {headers: {...session, ...headers}})).status).toBe(403)
    }
    const list = await ctx().transport.fetch('/svc/db/mine/list', {headers: {...session, ...SAME_ORIGIN_FETCH}})
    expect((await list.json()).map((r: {data: {text: string}}) => r.data.text)).toEqual(['admin note'])
    expect((await ctx().transport.fetch(`/svc/db/mine/delete?id=${id}`, {headers: {...session, ...SAME_ORIGIN_FETCH}})).status).toBe(200)
  })
})
