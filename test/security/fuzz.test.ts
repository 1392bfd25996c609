// Fuzzing of every endpoint, through both transports: malformed and mistyped bodies, bodies over
// the limit, and injection strings in every query parameter. Never a 5xx, never a stack trace,
// never a row of another account. Deterministic: a seeded generator picks the mistyped values.
import {beforeAll, expect, it} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'
import {createFixtures, MARKER, type Fixtures} from './fixtures.js'

const SEED = {
  accounts: ['acme', 'other'],
  users: [{login: 'admin', role: 'admin' as const}, {login: 'mallory', account: 'other', role: 'admin' as const}],
}

const INJECTIONS = [
  "' OR 1=1 --", '"; DROP TABLE db_records; --', '../../etc/passwd', '{{ 7*7 }}{% raw %}', '__proto__', 'constructor', 'a\u0000b',
  'x'.repeat(5000), '🙂𝔘ñí©ødé', '%', '*', '-id', 'data.name); DELETE FROM dbs; --', '$..*', '1e309', '-1', '[]', '{}',
]
const QUERY_KEYS = ['q', 'code', 'kind', 'scope', 'order_by', 'sort', 'fields', 'search_in', 'limit', 'offset', 'table_name', 'context', 'key', 'date',
  'status', 'flow_process_id', 'filter[name]', 'filter[__proto__]', 'filter[a.b]', "filter[x' OR '1]", 'id', 'active', 'app_engine', 'next']

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const WEIRD: unknown[] = [null, true, 0, -1, 1.5, 2 ** 60, '', 'x', [], [1, 'a'], {}, {a: {b: {c: 1}}}, '{{ TOKEN }}', ...INJECTIONS.slice(0, 6)]
function mistyped(rand: () => number, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, WEIRD[Math.floor(rand() * WEIRD.length)]]))
}
const FIELDS = ['name', 'code', 'content', 'kind', 'scope', 'scope_id', 'layout', 'shared', 'is_default', 'context', 'source_code', 'app_engine',
  'css_engine', 'url_code', 'public', 'active', 'actions', 'fields', 'schema', 'public_methods', 'data', 'table_name', 'url', 'secret_token',
  'schedule', 'target_code', 'old_string', 'new_string', 'field', 'replace_all', 'dashboard_id', 'id']

function routes(f: Fixtures): [string, string][] {
  return [
    ['GET', '/svc/me.json'], ['POST', '/account/set_field.json'],
    ['GET', '/svc/prompts.json'], ['POST', '/svc/prompts.json'], ['GET', `/svc/prompts/${f.accountPrompt}.json`],
    ['PATCH', `/svc/prompts/${f.accountPrompt}.json`], ['GET', `/svc/prompts/${f.accountPrompt}.md`], ['GET', '/svc/prompt/acme_prompt.md'],
    ['GET', '/svc/prompts/system.json'], ['GET', '/svc/prompts/system/main_dashboard.md'],
    ['GET', '/toolkit/dashboards.json'], ['POST', '/toolkit/dashboards.json'], ['GET', `/toolkit/dashboards/${f.companyDashboard}.json`],
    ['PATCH', `/toolkit/dashboards/${f.companyDashboard}.json`], ['PATCH', '/toolkit/dashboards/select.json'],
    ['GET', '/toolkit/dashboards/widgets.json'], ['GET', '/toolkit/dashboards/widget.json'],
    ['GET', '/svc/apps.json'], ['POST', '/svc/apps.json'], ['GET', `/svc/apps/${f.app}.json`], ['PATCH', `/svc/apps/${f.app}.json`],
    ['PATCH', `/svc/apps/${f.app}/replace.json`], ['POST', `/svc/apps/${f.app}/action/note`], ['GET', `/svc/apps/${f.app}/action/note/status`],
    ['GET', '/a/acme-app'], ['GET', `/a/${f.app}`],
    ['GET', '/svc/dbs.json'], ['POST', '/svc/dbs.json'], ['GET', `/svc/dbs/${f.db}.json`], ['PATCH', `/svc/dbs/${f.db}.json`],
    ['PATCH', `/svc/dbs/${f.db}/replace.json`], ['GET', `/svc/dbs/${f.db}/records.json`], ['POST', `/svc/dbs/${f.db}/records.json`],
    ['GET', `/svc/dbs/${f.db}/records/${f.record}.json`], ['PATCH', `/svc/dbs/${f.db}/records/${f.record}.json`],
    ['GET', `/svc/dbs/${f.db}/search.json`], ['POST', `/svc/dbs/${f.db}/import.json`], ['GET', `/svc/dbs/${f.db}/usage.json`],
    ['GET', '/svc/db/people/list'], ['GET', '/svc/db/people/search'], ['POST', '/svc/db/people/create'], ['GET', '/svc/db/people/get'],
    ['GET', '/svc/resources.json'], ['POST', '/svc/resources.json'], ['GET', `/svc/resources/${f.connector}.json`],
    ['PATCH', `/svc/resources/${f.connector}.json`], ['POST', `/svc/resources/${f.flow}/run.json`],
    ['GET', '/svc/connector/weather/current'],
    ['GET', '/account/crons.json'], ['POST', '/account/crons.json'], ['PATCH', `/account/crons/${f.cron}.json`],
    ['GET', '/connect/flow_processes.json'], ['GET', '/connect/flow_processes/00000000-0000-4000-8000-000000000000.json'],
    ['GET', '/'], ['GET', '/svc/login'], ['POST', '/svc/login'],
  ]
}

describeBothTransports('fuzzing', SEED, (ctx) => {
  let f: Fixtures
  beforeAll(async () => {
    f = await createFixtures(ctx())
  })

  const check = (what: string, r: {status: number; text: string}, as: string | null) => {
    // The fixture connector points at a closed port: its calls are a 502 from the upstream, by design.
    if (r.status === 502 && what.includes('/svc/connector/')) expect(JSON.parse(r.text).error).toMatch(/cannot reach/)
    else expect(r.status, `${what} → ${r.text.slice(0, 200)}`).toBeLessThan(500)
    expect(r.text, what).not.toMatch(/\n\s+at .*\.(js|ts):\d+|SqliteError|TypeError:|ReferenceError:/)
    if (as !== 'admin') expect(r.text, what).not.toContain(MARKER)
  }

  it('injection strings in every query parameter: no 5xx, no foreign rows', async () => {
    for (const [method, path] of routes(f)) {
      for (const injection of INJECTIONS) {
        const query = QUERY_KEYS.map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(injection)}`).join('&')
        for (const as of ['mallory', 'admin', null]) {
          const r = await ctx().call(method, `${path}?${query}`, {as, body: method === 'GET' ? undefined : {}})
          check(`${as} ${method} ${path} q=${injection.slice(0, 20)}`, r, as)
        }
      }
    }
  }, 240_000)

  it('malformed, mistyped and oversized bodies: 4xx with a clear error, never a 5xx', async () => {
    const rand = random(20261122)
    const raws = ['not json', '{"a":', '[]', 'null', '"str"', '123', '{"__proto__": {"role": "admin"}}', `{"x": "${'\\u0000'.repeat(10)}"}`,
      '['.repeat(5000) + ']'.repeat(5000)]
    for (const [method, path] of routes(f).filter(([m]) => m !== 'GET')) {
      for (const as of ['mallory', 'admin']) {
        for (const raw of raws) check(`${as} ${method} ${path} raw ${raw.slice(0, 20)}`, await ctx().call(method, path, {as, rawBody: raw}), as)
        const envelopes = ['prompt', 'dashboard', 'app', 'db', 'record', 'resource', 'cron']
        for (let i = 0; i < 6; i++) {
          const inner = mistyped(rand, FIELDS)
          const body = rand() < 0.5 ? Object.fromEntries(envelopes.map((e) => [e, inner])) : {...inner, data: mistyped(rand, ['name', 'visitor', 'x'])}
          check(`${as} ${method} ${path} mistyped #${i}`, await ctx().call(method, path, {as, body}), as)
        }
      }
    }
    const huge = JSON.stringify({record: {data: {name: 'x'.repeat(6 * 1024 * 1024)}}})
    for (const path of [`/svc/dbs/${f.db}/records.json`, '/svc/prompts.json', '/svc/db/people/create']) {
      const r = await ctx().call('POST', path, {rawBody: huge})
      expect(r.status, path).toBe(413)
      expect(r.json).toEqual({error: 'request body too large'})
    }
  }, 240_000)

  it('after all of it, acme still has exactly its own data', async () => {
    const records = await ctx().call('GET', `/svc/dbs/${f.db}/records.json?limit=100`)
    const names = records.json.map((r: {data: {name?: string}}) => r.data.name)
    expect(names).toContain(`Ada ${MARKER}`)
    expect((await ctx().call('GET', '/svc/prompts.json', {as: 'mallory'})).text).not.toContain(MARKER)
    expect((await ctx().call('GET', `/svc/apps/${f.app}.json`)).status).toBe(200)
  })
})
