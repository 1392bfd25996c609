// Tokens and secrets never leave the server: a tour of every resource against a real `svc serve`
// (access log on), then every response body and header, and the server's whole output, are
// scanned for the API tokens, the session token, the connector secret and the resources' tokens.
import {afterAll, beforeAll, expect, it} from 'vitest'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {makeCall, type CallOptions, type Ctx} from '../helpers/scenarios.js'
import {tempDir, type Transport, type World} from '../helpers/world.js'
import {CONNECTOR_SECRET, createFixtures, type Fixtures} from './fixtures.js'

let server: ServeProcess
const tokens: Record<string, string> = {}
const seen: string[] = []

/** Real HTTP to the served instance, recording every response (status, headers, body). */
const recording: Transport = {
  name: 'http',
  get origin() {
    return server.url
  },
  async fetch(path, init) {
    const res = await fetch(server.url + path, {...init, redirect: 'manual'})
    const text = await res.clone().text()
    seen.push(`${init?.method ?? 'GET'} ${path} ${res.status}\n${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${text}`)
    return res
  },
  close: async () => {},
}
const call = (method: string, path: string, options?: CallOptions) =>
  makeCall({users: Object.fromEntries(Object.entries(tokens).map(([login, token]) => [login, {token}]))} as unknown as World, recording)(method, path, options)

let f: Fixtures
let session = ''

beforeAll(async () => {
  const data = tempDir()
  for (const login of ['admin', 'alice']) {
    const r = await svc(['admin', 'user', 'add', login, '--role', login === 'admin' ? 'admin' : 'user', '--data', data, '--json'])
    tokens[login] = r.json.token
  }
  server = await svcServe(data)
  f = await createFixtures({call} as unknown as Ctx)
  const login = await fetch(`${server.url}/svc/login`, {method: 'POST', body: new URLSearchParams({token: tokens.admin!, next: '/'}), redirect: 'manual'})
  session = /svc_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1]!
  seen.push([...login.headers].map(([k, v]) => (k === 'set-cookie' ? '' : `${k}: ${v}`)).join('\n'))
}, 120_000)

afterAll(async () => {
  await server?.stop()
})

it('no response, header or log line holds a token or a secret', async () => {
  const cookie = {cookie: `svc_session=${session}`}
  const gets = [
    '/svc/me.json', '/svc/prompts.json', `/svc/prompts/${f.accountPrompt}.json`, `/svc/prompts/${f.accountPrompt}.md`, '/svc/prompt/acme_prompt.md',
    '/toolkit/dashboards.json', `/toolkit/dashboards/${f.companyDashboard}.json`, '/toolkit/dashboards/widgets.json?context=main',
    '/svc/apps.json', `/svc/apps/${f.app}.json`, '/svc/dbs.json', `/svc/dbs/${f.db}.json`, `/svc/dbs/${f.db}/records.json`,
    `/svc/dbs/${f.db}/search.json?q=Ada`, '/svc/resources.json', `/svc/resources/${f.connector}.json`, '/account/crons.json',
    '/connect/flow_processes.json', '/svc/connector/weather/current', '/a/acme-app',
  ]
  for (const path of gets) {
    await call('GET', path)
    await call('GET', path, {as: 'alice'})
    await call('GET', path, {as: null})
    await call('GET', path, {as: null, headers: cookie})
  }
  const run = await call('POST', `/svc/apps/${f.app}/action/note`, {body: {x: 1}})
  expect(run.status, run.text).toBe(200)
  await call('GET', `/svc/apps/${f.app}/action/note/status?flow_process_id=${run.json.flow_process_id}`)
  await call('POST', `/svc/resources/${f.flow}/run.json`, {body: {}})
  await call('POST', `/svc/db/${f.dbCode}/create`, {as: null, body: {data: {name: 'visitor'}}})
  await call('GET', `/svc/db/${f.dbCode}/list`, {as: null})
  await call('GET', '/', {as: null, headers: cookie})
  // Failures too: a wrong token, a bad body, a foreign id.
  await call('GET', '/svc/me.json', {as: null, headers: {authorization: `Bearer ${tokens.admin}x`}})
  await call('POST', '/svc/prompts.json', {rawBody: '{'})
  await call('PATCH', `/svc/resources/${f.connector}.json`, {body: {resource: {secret_token: CONNECTOR_SECRET, url: 'not a url'}}})
  await call('GET', `/svc/prompts/${f.adminUserPrompt}.json`, {as: 'alice'})
  await call('POST', '/svc/logout', {as: null, headers: {...cookie, origin: server.url}})

  const everything = seen.join('\n\n') + server.output()
  expect(server.output()).toMatch(/GET \/svc\/me\.json 200/) // the access log was on
  for (const [name, secret] of [...Object.entries(tokens), ['session', session], ['connector secret', CONNECTOR_SECRET]] as [string, string][]) {
    expect(everything.includes(secret), `${name} leaked`).toBe(false)
  }
  // Resources keep write-only secrets and internal tokens out of their views.
  expect(everything).not.toMatch(/"secret_token"\s*:\s*"/)
  expect(everything).not.toMatch(/"token"\s*:\s*"/)
  expect(everything).not.toMatch(/"(app_code|css_code)"\s*:/)
  const app = await call('GET', `/svc/apps/${f.app}.json`)
  expect(Object.keys(app.json)).not.toContain('account_id')
}, 120_000)
