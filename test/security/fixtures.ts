// One of every resource in account acme, created through the API as its admin (and alice), for
// the security suite to attack from the other account (mallory) and from the other user.
import {expect} from 'vitest'
import type {Ctx} from '../helpers/scenarios.js'

export const MARKER = 'acme-secret-marker-7f3a'
export const CONNECTOR_SECRET = 'connector-secret-9b1e-do-not-leak'

export interface Fixtures {
  accountPrompt: string
  adminUserPrompt: string
  personalDashboard: number
  companyDashboard: number
  app: string
  db: number
  dbCode: string
  record: number
  connector: number
  flow: number
  cron: number
}

async function ok(ctx: Ctx, method: string, path: string, body: unknown, as = 'admin') {
  const r = await ctx.call(method, path, {body, as})
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBeLessThan(300)
  return r.json
}

export async function createFixtures(ctx: Ctx): Promise<Fixtures> {
  const accountPrompt = (await ok(ctx, 'POST', '/svc/prompts.json', {prompt: {name: `Account ${MARKER}`, code: 'acme_prompt', content: `Body ${MARKER}`}})).id
  const adminUserPrompt = (await ok(ctx, 'POST', '/svc/prompts.json', {prompt: {name: `Mine ${MARKER}`, code: 'acme_prompt', scope: 'user', content: `Admin ${MARKER}`}})).id
  const personalDashboard = (await ok(ctx, 'POST', '/toolkit/dashboards.json', {dashboard: {name: `Personal ${MARKER}`, context: 'main', layout: [{key: 'tasks'}]}})).id
  const companyDashboard = (await ok(ctx, 'POST', '/toolkit/dashboards.json', {dashboard: {name: `Company ${MARKER}`, context: 'crm', shared: true, layout: [{key: 'kpi'}]}})).id
  const db = await ok(ctx, 'POST', '/svc/dbs.json', {db: {
    name: `People ${MARKER}`, code: 'people', schema: {fields: {name: 'string', visitor: 'string'}, indexed_fields: ['name']},
    public_methods: {
      create: {allowed_fields: ['name'], auto_fields: {visitor: '{cookie_key}'}},
      list: {scope_by: 'visitor'},
      search: {scope_by: 'visitor'},
    },
  }})
  const record = (await ok(ctx, 'POST', `/svc/dbs/${db.id}/records.json`, {record: {data: {name: `Ada ${MARKER}`}}})).id
  const connector = (await ok(ctx, 'POST', '/svc/resources.json', {resource: {
    kind: 'svc/custom_connector', code: 'weather', name: `Weather ${MARKER}`, url: 'http://127.0.0.1:9', secret_token: CONNECTOR_SECRET,
    fields: {methods: [{name: 'current', http_method: 'GET', path: '/current', public: true}]},
  }})).id
  const flow = (await ok(ctx, 'POST', '/svc/resources.json', {resource: {
    kind: 'svc/custom_flow', code: 'note', name: `Flow ${MARKER}`, fields: {program: [{type: 'mutation', set: {note: MARKER}}]},
  }})).id
  const cron = (await ok(ctx, 'POST', '/account/crons.json', {cron: {target_code: 'note', schedule: '0 3 * * *', active: false}})).id
  const app = (await ok(ctx, 'POST', '/svc/apps.json', {app: {
    name: `App ${MARKER}`, url_code: 'acme-app', app_engine: 'html', css_engine: 'none', public: false, db_code: 'people', source_code: `<p>${MARKER}</p>`,
    actions: [{action: 'note', flow_code: 'note', public: false}, {action: 'open', flow_code: 'note', public: true}],
  }})).id
  return {accountPrompt, adminUserPrompt, personalDashboard, companyDashboard, app, db: db.id, dbCode: 'people', record, connector, flow, cron}
}
