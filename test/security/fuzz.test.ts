// Property-based fuzzing of every route (fast-check): generated paths, ids, query parameters and
// bodies — prototype names, injection strings, NUL bytes, mistyped and deeply nested JSON — sent
// as acme's admin, as mallory (another account) and anonymously. Properties: never a 5xx, never a
// stack trace, never acme's data for anyone else, and nothing of acme changed by anyone but acme.
// The bulk goes in-process; a sample of the same generator goes over real HTTP. A failure prints
// fast-check's seed and the shrunk request: rerun with SVC_FUZZ_SEED=<seed> to reproduce it.
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {contractProblems} from '../helpers/contract.js'
import {makeCall, type Ctx} from '../helpers/scenarios.js'
import {createWorld, fetchWithHost, inProcess, overHttp, type Transport, type World} from '../helpers/world.js'
import {createFixtures, MARKER, type Fixtures} from './fixtures.js'
import {mutatedBody, PROTO} from './fuzz-bodies.js'

const SEED = {
  accounts: ['acme', 'other'],
  users: [{login: 'admin', role: 'admin' as const}, {login: 'mallory', account: 'other', role: 'admin' as const}],
}
/** Requests per phase (two phases): 4700 in-process and 300 over HTTP, 10,000 in all (~30 s here). */
const RUNS = {inProcess: 4700, http: 300}
const seed = process.env.SVC_FUZZ_SEED ? Number(process.env.SVC_FUZZ_SEED) : undefined

const INJECTIONS = [
  "' OR 1=1 --", '"; DROP TABLE db_records; --', '../../etc/passwd', '..%2F..%2Fetc', '{{ 7*7 }}{% raw %}', '{% tablerow i in (1..99999999) %}',
  'a\u0000b', '\u0000', 'x'.repeat(3000), '🙂𝔘ñí©ødé', '%', '*', '-id', '+name', '$..*', '1e309', '-1', '0', '99999999999999999999', '[]', '{}',
  'null', 'true', ' ', '', '\ud800', 'http://169.254.169.254/', ...PROTO, ...PROTO.map((p) => `-${p}`),
]
const FIELD_TYPES = ['string', 'text', 'integer', 'number', 'boolean', 'datetime', 'date', 'time']
const ENVELOPES = ['prompt', 'dashboard', 'app', 'db', 'record', 'resource', 'cron']
const FIELDS = ['name', 'code', 'content', 'kind', 'scope', 'scope_id', 'layout', 'shared', 'is_default', 'context', 'source_code', 'app_engine',
  'css_engine', 'url_code', 'public', 'active', 'actions', 'fields', 'schema', 'public_methods', 'data', 'table_name', 'url', 'secret_token',
  'schedule', 'target_code', 'old_string', 'new_string', 'old', 'new', 'field', 'replace_all', 'dashboard_id', 'id', 'limit', 'q', 'offset',
  'sort', 'records', 'methods', 'program', 'params', 'input', 'key', 'value', 'action_type', 'token', 'login', 'dashboard', 'description',
  'indexed_fields', 'indexes', 'tables', 'path', 'http_method', 'condition', 'then', 'else']
const QUERY_KEYS = ['q', 'code', 'kind', 'scope', 'order_by', 'sort', 'fields', 'search_in', 'limit', 'offset', 'table_name', 'context', 'key',
  'date', 'status', 'flow_process_id', 'id', 'active', 'app_engine', 'next', 'after_id', 'data', 'value', 'action_type', 'dashboard_id',
  'filter[name]', 'filter[a.b]', "filter[x' OR '1]", ...PROTO.map((p) => `filter[${p}]`), ...PROTO.map((p) => `data[${p}]`), ...PROTO]

const deep = (open: string, close: string, n: number, inner = '1') => open.repeat(n) + inner + close.repeat(n)
const RAW_BODIES = ['not json', '{"a":', '[]', 'null', '"str"', '123', '{"__proto__": {"role": "admin"}}', '{"constructor": {"prototype": {"x": 1}}}',
  `{"x": "${'\\u0000'.repeat(10)}"}`, deep('[', ']', 20_000), deep('{"a":', '}', 20_000), `{"record": {"data": ${deep('{"a":', '}', 12_000)}}}`,
  `{"data": ${deep('[', ']', 12_000)}}`, `{"db": {"schema": ${deep('{"fields":', '}', 5000)}}}`]

type As = 'admin' | 'mallory' | null
/** What an answer did outside the document, by its headers (the one object a reply shares with its Response). */
const outsideContract = new WeakMap<Headers, string[]>()
interface Req {
  method: string
  template: string
  path: string
  query: [string, string][]
  body: {raw: string} | {json: unknown} | undefined
  /** Where it goes: the main origin, acme's app's own origin, or an app origin no app has. */
  origin: 'main' | 'app' | 'stranger'
  headers: Record<string, string>
}

const ORIGIN_HOSTS = {app: 'acme-app.localhost', stranger: 'nobody-here.localhost'}

/** Every route of the API with `{...}` placeholders for ids (filled by the generator). */
function routeTemplates(): [string, string][] {
  return [
    ['GET', '/svc/me.json'], ['POST', '/account/set_field.json'],
    ['GET', '/svc/prompts.json'], ['POST', '/svc/prompts.json'], ['GET', '/svc/prompts/{prompt}.json'], ['PATCH', '/svc/prompts/{prompt}.json'],
    ['DELETE', '/svc/prompts/{prompt}.json'], ['GET', '/svc/prompts/{prompt}.md'], ['GET', '/svc/prompt/{code}.md'], ['GET', '/svc/prompt/{code}'],
    ['PATCH', '/svc/prompts/{prompt}/replace.json'], ['GET', '/svc/prompts/system.json'], ['GET', '/svc/prompts/system/{code}.md'],
    ['GET', '/toolkit/dashboards.json'], ['POST', '/toolkit/dashboards.json'], ['GET', '/toolkit/dashboards/{dashboard}.json'],
    ['PATCH', '/toolkit/dashboards/{dashboard}.json'], ['DELETE', '/toolkit/dashboards/{dashboard}.json'], ['PATCH', '/toolkit/dashboards/select.json'],
    ['GET', '/toolkit/dashboards/widgets.json'], ['GET', '/toolkit/dashboards/widget.json'],
    ['GET', '/svc/apps.json'], ['POST', '/svc/apps.json'], ['GET', '/svc/apps/{app}.json'], ['PATCH', '/svc/apps/{app}.json'],
    ['DELETE', '/svc/apps/{app}.json'], ['PATCH', '/svc/apps/{app}/replace.json'], ['POST', '/svc/apps/{app}/action/{code}'],
    ['GET', '/svc/apps/{app}/action/{code}/status'], ['GET', '/a/{code}'], ['GET', '/a/{app}'], ['GET', '/a/{code}/app.0123456789abcdef.js'],
    ['GET', '/_svc/lib/{code}'], ['GET', '/console/assets/{code}'], ['GET', '/favicon.ico'], ['GET', '/svc/engines.json'],
    ['GET', '/svc/dbs.json'], ['POST', '/svc/dbs.json'], ['GET', '/svc/dbs/{db}.json'], ['PATCH', '/svc/dbs/{db}.json'], ['DELETE', '/svc/dbs/{db}.json'],
    ['PATCH', '/svc/dbs/{db}/replace.json'], ['GET', '/svc/dbs/{db}/records.json'], ['POST', '/svc/dbs/{db}/records.json'],
    ['GET', '/svc/dbs/{db}/records/{record}.json'], ['PATCH', '/svc/dbs/{db}/records/{record}.json'], ['DELETE', '/svc/dbs/{db}/records/{record}.json'],
    ['GET', '/svc/dbs/{db}/search.json'], ['POST', '/svc/dbs/{db}/import.json'], ['GET', '/svc/dbs/{db}/usage.json'],
    ['GET', '/svc/db/{dbcode}/{method}'], ['POST', '/svc/db/{dbcode}/{method}'],
    ['GET', '/svc/resources.json'], ['POST', '/svc/resources.json'], ['GET', '/svc/resources/{resource}.json'], ['PATCH', '/svc/resources/{resource}.json'],
    ['DELETE', '/svc/resources/{resource}.json'], ['POST', '/svc/resources/{resource}/run.json'],
    ['GET', '/svc/connector/{code}/{method}'], ['POST', '/svc/connector/{code}/{method}'],
    ['GET', '/account/crons.json'], ['POST', '/account/crons.json'], ['GET', '/account/crons/{cron}.json'], ['PATCH', '/account/crons/{cron}.json'],
    ['DELETE', '/account/crons/{cron}.json'], ['POST', '/account/crons/{cron}/run.json'],
    ['GET', '/connect/flow_processes.json'], ['GET', '/connect/flow_processes/{uuid}.json'],
    ['GET', '/'], ['GET', '/svc/login'], ['POST', '/svc/login'], ['POST', '/svc/logout'], ['GET', '/svc/nothing/here.json'],
  ]
}

/** Any code points, lone surrogates included (fc.string's 'binary' unit does the same but ~100× slower). */
const anyCodePoints = fc.array(fc.integer({min: 0, max: 0x10ffff}), {maxLength: 12}).map((cps) => String.fromCodePoint(...cps))

function arbitraries(f: Fixtures) {
  const odd = fc.constantFrom('0', '-1', '99999999999999999999', '1e3', '1.5', 'abc', '%00', '..%2F..', '%2e%2e', ...PROTO)
  const text = fc.oneof(fc.constantFrom(...INJECTIONS), fc.string({maxLength: 24}), anyCodePoints)
  const slot = (own: string | number) => fc.oneof({weight: 4, arbitrary: fc.constant(String(own))}, {weight: 2, arbitrary: odd},
    {weight: 1, arbitrary: fc.string({maxLength: 12}).map(enc)})
  const slots: Record<string, fc.Arbitrary<string>> = {
    prompt: fc.oneof(slot(f.accountPrompt), slot(f.adminUserPrompt)), dashboard: fc.oneof(slot(f.companyDashboard), slot(f.personalDashboard)),
    app: slot(f.app), db: slot(f.db), record: slot(f.record), resource: fc.oneof(slot(f.connector), slot(f.flow)), cron: slot(f.cron),
    code: fc.oneof(fc.constantFrom('acme_prompt', 'acme-app', 'note', 'open', 'weather', 'main_dashboard', 'common_api'), odd),
    dbcode: fc.oneof({weight: 3, arbitrary: fc.constant('people')}, {weight: 1, arbitrary: odd}),
    method: fc.oneof(fc.constantFrom('list', 'get', 'search', 'create', 'update', 'delete', 'current'), odd),
    uuid: fc.oneof(fc.uuid(), odd),
  }
  const path = fc.constantFrom(...routeTemplates()).chain(([method, template]) => {
    const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
    return fc.tuple(...names.map((n) => slots[n]!)).map((values) => {
      let p = template
      names.forEach((n, i) => (p = p.replace(`{${n}}`, values[i]!)))
      return [method, p, template] as const
    })
  })
  const key = fc.oneof({weight: 3, arbitrary: fc.constantFrom(...FIELDS, ...PROTO)}, {weight: 1, arbitrary: fc.string({maxLength: 10})})
  const plain = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constantFrom(2 ** 60, -0, 1e308))
  // Objects whose toString/valueOf/constructor/__proto__ are not functions: `String(v)`, `${v}`, `[v].join()` or `v < w`
  // of one throws. Any value of any body may be one (the leaves below), and anything()-style values of every kind.
  const hostile = fc.oneof(
    fc.dictionary(fc.constantFrom(...PROTO), fc.oneof(plain, fc.constant({}), fc.constant([]), fc.dictionary(fc.constantFrom(...PROTO), plain, {maxKeys: 2})),
      {minKeys: 1, maxKeys: 3}),
    fc.anything({key: fc.oneof(fc.constantFrom(...PROTO), key), maxDepth: 2, maxKeys: 3}),
  )
  const scalar = fc.oneof({weight: 6, arbitrary: plain}, {weight: 1, arbitrary: hostile})
  const value: fc.Arbitrary<unknown> = fc.oneof(
    {weight: 5, arbitrary: scalar},
    {weight: 2, arbitrary: fc.jsonValue({maxDepth: 3})},
    {weight: 2, arbitrary: fc.dictionary(key, scalar, {maxKeys: 4})},
    {weight: 1, arbitrary: fc.array(scalar, {maxLength: 4})},
    // Shapes that reach deeper code: schemas, public methods, layouts, programs, connector methods.
    {weight: 1, arbitrary: fc.record({fields: fc.dictionary(key, fc.oneof(fc.constantFrom(...FIELD_TYPES), scalar), {maxKeys: 3}),
      indexed_fields: fc.array(fc.oneof(fc.constantFrom('name', 'visitor'), scalar), {maxLength: 3}), indexes: fc.dictionary(key, scalar, {maxKeys: 2})}, {requiredKeys: []})},
    {weight: 1, arbitrary: fc.dictionary(fc.constantFrom('list', 'get', 'search', 'create', 'update', ...PROTO),
      fc.oneof(fc.boolean(), fc.dictionary(fc.constantFrom('allowed_fields', 'scope_by', 'auto_fields', 'default_values', ...PROTO),
        fc.oneof(scalar, fc.array(fc.oneof(fc.constantFrom('name', 'visitor', ...PROTO), hostile)), fc.dictionary(key, scalar, {maxKeys: 3})))), {maxKeys: 3})},
    {weight: 1, arbitrary: fc.array(fc.dictionary(fc.constantFrom('key', 'size', 'type', 'name', 'http_method', 'path', 'set', 'connector', ...PROTO), scalar), {maxLength: 3})},
  )
  const inner = fc.dictionary(key, value, {maxKeys: 6})
  // Engines that compile are left out (each compile takes ~150 ms); test/fault/compile.test.ts covers them.
  const app = fc.record({app_engine: fc.constantFrom('html', 'js', 'nope', ''), source_code: fc.oneof(text, hostile), name: fc.oneof(text, hostile)}, {requiredKeys: []})
  const body = fc.oneof(
    {weight: 3, arbitrary: fc.tuple(fc.constantFrom(...ENVELOPES), inner).map(([e, v]) => ({json: {[e]: v}}))},
    {weight: 3, arbitrary: inner.map((v) => ({json: v}))},
    {weight: 1, arbitrary: app.map((a) => ({json: {app: a}}))},
    {weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES).map((raw) => ({raw}))},
    {weight: 1, arbitrary: fc.constant(undefined)},
  )
  const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({maxLength: 8})), text), {maxLength: 5})
  // A write route gets, half the time, its valid body with hostile values at any position (fuzz-bodies.ts).
  const bodyOf = (method: string, template: string) => {
    const seeded = mutatedBody(`${method} ${template}`, hostile)
    return seeded ? fc.oneof({weight: 1, arbitrary: seeded.map((json) => ({json}))}, {weight: 1, arbitrary: body}) : body
  }
  const origin = fc.constantFrom<Req['origin'][]>('main', 'main', 'main', 'main', 'app', 'stranger')
  // Headers a browser or an attacker may add: junk cookies, cross-site fetch metadata, a foreign Origin,
  // a text/plain body, and headers over the server's limit (431 over HTTP).
  const headers = fc.oneof(
    {weight: 12, arbitrary: fc.constant({})},
    {weight: 1, arbitrary: fc.record({cookie: fc.constantFrom('svc_session=x', 'svc_app_session=x.y', 'svc_visitor=a.b', '__proto__=1; svc_session=')})},
    {weight: 1, arbitrary: fc.record({'sec-fetch-site': fc.constantFrom('cross-site', 'same-site', 'none'), 'sec-fetch-mode': fc.constantFrom('navigate', 'cors', 'no-cors'),
      origin: fc.constantFrom('http://evil.example', 'null', 'http://acme-app.localhost')}, {requiredKeys: []})},
    {weight: 1, arbitrary: fc.constantFrom({'content-type': 'text/plain'}, {'x-pad': 'a'.repeat(20_000)}, {cookie: `svc_visitor=${'b'.repeat(20_000)}`})},
  )
  return path.chain((route) => fc.record({query, body: bodyOf(route[0], route[2]), origin, headers})
    .map(({query, body, origin, headers}): Req => ({method: route[0], path: route[1], template: route[2], query, body, origin, headers})))
}

/** Percent-encodes; a lone surrogate becomes the invalid UTF-8 bytes %ED%A0%80 (the server must cope with those too). */
function enc(s: string): string {
  try {
    return encodeURIComponent(s)
  } catch {
    return encodeURIComponent(s.toWellFormed()) + '%ED%A0%80'
  }
}

/** App writes never pick an engine that compiles (~150 ms each; test/fault/compile.test.ts covers those): html unless given js. */
function noCompile(body: unknown): unknown {
  const app = (body as {app?: unknown} | null)?.app
  if (app && typeof app === 'object' && !Array.isArray(app)) {
    const engine = (app as {app_engine?: unknown}).app_engine
    return {...body as object, app: {...app, app_engine: engine === 'js' || engine === 'nope' ? engine : 'html'}}
  }
  return body
}

/** The URL (absolute on an app origin of the server at `port`) and options of a request. */
function requestOf(req: Req, port = ''): [string, {rawBody?: string; body?: unknown; headers: Record<string, string>}] {
  const qs = req.query.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')
  const path = qs ? `${req.path}?${qs}` : req.path
  const url = req.origin === 'main' ? path : `http://${ORIGIN_HOSTS[req.origin]}${port && `:${port}`}${path}`
  if (req.method === 'GET' || !req.body) return [url, {headers: req.headers}]
  return [url, 'raw' in req.body ? {rawBody: req.body.raw, headers: req.headers} : {body: noCompile(req.body.json), headers: req.headers}]
}

/** Everything of acme as its admin sees it, minus what anonymous visitors may add (public creates). */
async function acmeSnapshot(ctx: Ctx, f: Fixtures): Promise<string> {
  const paths = ['/svc/me.json', '/svc/prompts.json', `/svc/prompts/${f.adminUserPrompt}.json`, '/toolkit/dashboards.json', '/svc/apps.json',
    `/svc/apps/${f.app}.json`, '/svc/dbs.json', `/svc/dbs/${f.db}.json`, '/svc/resources.json', '/account/crons.json',
    `/toolkit/dashboards/${f.personalDashboard}.json`, `/toolkit/dashboards/${f.companyDashboard}.json`]
  const out: unknown[] = []
  for (const p of paths) {
    const r = await ctx.call('GET', p)
    expect(r.status, p).toBe(200)
    // Counters that public visitors legitimately move.
    out.push(JSON.parse(r.text, (k, v) => (k === 'records_count' ? undefined : v)))
  }
  const records = await ctx.call('GET', `/svc/dbs/${f.db}/records.json?limit=100&sort=id`)
  out.push(records.json.filter((r: {data: {visitor?: string}}) => !r.data.visitor))
  return JSON.stringify(out)
}

describe('fuzzing every route (fast-check)', () => {
  let world: World
  let f: Fixtures
  const transports: Record<'in-process' | 'http', {transport: Transport; ctx: Ctx}> = {} as never
  let sent = 0

  beforeAll(async () => {
    world = await createWorld(SEED)
    // Raw transports: the fuzz asserts its own properties (the contract checker of test/helpers/contract.ts
    // would also flag documented-elsewhere answers such as the login rate limit's 429).
    const http = await overHttp(world.app)
    // Every answer is held against the document (route + method → its listed statuses, content types, body schemas).
    const checked = (send: (path: string, init?: RequestInit) => Promise<Response>) => async (path: string, init?: RequestInit) => {
      const res = await send(path, init)
      const problems = await contractProblems((init?.method ?? 'GET').toUpperCase(), path, res)
      if (problems.length) outsideContract.set(res.headers, problems)
      return res
    }
    const raw: Transport[] = [
      {...inProcess(world.app), fetch: checked(async (path, init) => world.app.request(/^http:/.test(path) ? path : 'http://localhost' + path, init))},
      {...http, fetch: checked((path, init) => (/^http:/.test(path) ? fetchWithHost(http.origin, new URL(path), init) : fetch(http.origin + path, init)))},
    ]
    for (const t of raw) transports[t.name] = {transport: t, ctx: {world, transport: t, call: makeCall(world, t)}}
    f = await createFixtures(transports['in-process'].ctx)
  })
  afterAll(async () => {
    await transports.http?.transport.close()
    await world?.close()
  })

  const check = (req: Req, as: As, r: {status: number; headers: Headers; text: string}) => {
    sent++
    const what = `${String(as)} ${req.method} ${requestOf(req)[0].slice(0, 300)} → ${r.status} ${r.text.slice(0, 200)}`
    const problems = outsideContract.get(r.headers)
    if (problems) throw new Error(`outside the document (/svc/openapi.json): ${what}\n  ${problems.join('\n  ')}`)
    // A connector whose upstream cannot be reached (or is refused by the egress policy) is a 502, by design.
    const upstream = r.status === 502 && /\/svc\/(connector|resources)\//.test(req.path)
    if (!upstream && r.status >= 500) throw new Error(`5xx: ${what}`)
    if (/\n\s+at .*\.(js|ts):\d+|SqliteError|TypeError:|ReferenceError:|RangeError:/.test(r.text)) throw new Error(`stack trace: ${what}`)
    // A public app action's output is public by design (the fixture's `open` action returns the flow's note).
    if (as !== 'admin' && !/\/action\/open$/.test(req.path) && r.text.includes(MARKER)) throw new Error(`acme's data reached ${String(as)}: ${what}`)
  }

  const fuzz = (transport: 'in-process' | 'http', callers: As[], numRuns: number) =>
    fc.assert(
      fc.asyncProperty(arbitraries(f), fc.constantFrom(...callers), async (req, as) => {
        const [url, options] = requestOf(req, transport === 'http' ? new URL(transports.http.transport.origin).port : '')
        check(req, as, await transports[transport].ctx.call(req.method, url, {...options, as}))
      }),
      {numRuns, seed, endOnFailure: true},
    )

  it('mallory and anonymous visitors: no 5xx, never acme\'s data, and acme unchanged but for public creates', async () => {
    const before = await acmeSnapshot(transports['in-process'].ctx, f)
    await fuzz('in-process', ['mallory', null], RUNS.inProcess)
    await fuzz('http', ['mallory', null], RUNS.http)
    expect(await acmeSnapshot(transports['in-process'].ctx, f)).toBe(before)
  }, 300_000)

  it('acme\'s admin: no 5xx and no stack trace on any route, and the other account unchanged', async () => {
    const mallorysBefore = await snapshotOf('mallory')
    await fuzz('in-process', ['admin'], RUNS.inProcess)
    await fuzz('http', ['admin'], RUNS.http)
    expect(await snapshotOf('mallory')).toBe(mallorysBefore)
    expect(sent).toBeGreaterThanOrEqual(10_000)
  }, 300_000)

  async function snapshotOf(login: string): Promise<string> {
    const out: string[] = []
    for (const p of ['/svc/prompts.json', '/toolkit/dashboards.json', '/svc/apps.json', '/svc/dbs.json', '/svc/resources.json', '/account/crons.json']) {
      out.push((await transports['in-process'].ctx.call('GET', p, {as: login})).text)
    }
    return out.join('\n')
  }
})
