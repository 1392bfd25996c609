// Bodies for the fuzz that get past the first check of their route: a valid body per write route
// (every member the route reads, nested shapes included: schemas, public methods, connector
// methods, flow programs, layouts, actions), of which the generator replaces values at one or more
// positions — any position, the envelope, a leaf or a container — with hostile values, or adds a
// hostile member to an object. So a bad value meets the code of its exact place (a field name in
// `schema.indexed_fields`, a connector method's `path`), not only a top-level check.
import fc from 'fast-check'

export const PROTO = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf']

const schema = {
  fields: {name: 'string', visitor: 'string', n: {type: 'integer', required: false}, at: 'datetime'},
  indexed_fields: ['name', 'n'], indexes: {at: 'idx_time_1'},
}
const methods = {
  list: {scope_by: 'visitor', allowed_params: ['name'], allowed_fields: ['name']},
  get: true, search: {allowed_fields: ['name'], scope_by: 'visitor'},
  create: {allowed_fields: ['name', 'n'], required_fields: ['name'], default_values: {n: 1}, auto_fields: {visitor: '{cookie_key}'}},
  update: {allowed_fields: ['name'], scope_by: 'visitor'}, delete: {scope_by: 'visitor'},
}
const db = {name: 'Fuzzed', code: 'fuzzed', schema, public_methods: methods}
const tablesDb = {name: 'Tables', code: 'fuzzed_tables', schema: {tables: {t: {fields: {a: 'string', b: 'number'}, indexed_fields: ['a', 'b'], indexes: {a: 'idx_str_2'}}}}}
const connector = {
  kind: 'svc/custom_connector', code: 'fuzzed_conn', name: 'C', url: 'http://127.0.0.1:9', secret_token: 'secret-token-123',
  fields: {methods: [{name: 'item', http_method: 'GET', path: '/items/{id}', public: true, description: 'd'}, {name: 'add', http_method: 'POST', path: '/items'}]},
}
const flow = {
  kind: 'svc/custom_flow', code: 'fuzzed_flow', name: 'F', fields: {program: [
    {type: 'connector', connector: 'weather', method: 'current', params: {id: '{input.id}', q: 'x'}, into: 'w'},
    {type: 'mutation', set: {a: '{w.temp}', b: 1}},
    {type: 'if', condition: 'a == 1 and b > 0', then: [{type: 'mutation', set: {c: 'yes'}}], else: [{type: 'mutation', set: {c: 'no'}}]},
  ]},
}
const prompt = {name: 'P', code: 'fuzzed_prompt', content: 'Hi {{ user.name }} {{ "x" | prompt_url }}', kind: 'chat', scope: 'team', scope_id: 1, ai_placeholder: 'a'}
const dashboard = {name: 'D', context: 'main', layout: [{key: 'tasks', size: 'half', config: {limit: 5}}, {key: 'svc_app:acme-app'}], shared: false, is_default: false}
const app = {
  name: 'A', url_code: 'fuzzed-app', description: 'd', app_engine: 'html', css_engine: 'none', source_code: '<p>x</p>', public: true, active: true,
  db_code: 'people', actions: [{action: 'go', flow_code: 'note', public: true}],
}
const record = {table_name: null, data: {name: 'Ann', n: 3, at: '2024-01-02T03:04:05Z'}}
const replace = (field: string) => ({field, old_string: 'name', new_string: 'title', replace_all: true})
const cron = {kind: 'flow', target_code: 'note', schedule: '0 7 * * 1-5', timezone: 'Europe/Warsaw', active: false}

/** A valid body of each write route of test/security/fuzz.test.ts's route list (keyed `METHOD template`). */
export const SEED_BODIES: Record<string, unknown[]> = {
  'POST /account/set_field.json': [{key: 'account.settings.modules', action_type: 'add', value: 'crm'}],
  'POST /svc/prompts.json': [{prompt}], 'PATCH /svc/prompts/{prompt}.json': [{prompt}],
  'PATCH /svc/prompts/{prompt}/replace.json': [{field: 'content', old_string: 'Hi', new_string: 'Yo'}],
  'POST /toolkit/dashboards.json': [{dashboard}], 'PATCH /toolkit/dashboards/{dashboard}.json': [{dashboard}],
  'PATCH /toolkit/dashboards/select.json': [{context: 'main', dashboard_id: 'builtin'}],
  'POST /svc/apps.json': [{app}], 'PATCH /svc/apps/{app}.json': [{app}], 'PATCH /svc/apps/{app}/replace.json': [replace('source_code')],
  'POST /svc/apps/{app}/action/{code}': [{input: {id: 1, q: 'x'}, id: 1}],
  'POST /svc/dbs.json': [{db}, {db: tablesDb}], 'PATCH /svc/dbs/{db}.json': [{db}, {db: tablesDb}],
  'PATCH /svc/dbs/{db}/replace.json': [replace('schema'), replace('public_methods')],
  'POST /svc/dbs/{db}/records.json': [{record}], 'PATCH /svc/dbs/{db}/records/{record}.json': [{record}],
  'POST /svc/dbs/{db}/import.json': [{records: [record, {data: {name: 'Bob'}}]}],
  'POST /svc/db/{dbcode}/{method}': [{id: 1, q: 'a', limit: 5, offset: 0, sort: '-name', table_name: 't', data: {name: 'V'}, name: 'x'}],
  'POST /svc/resources.json': [{resource: connector}, {resource: flow}],
  'PATCH /svc/resources/{resource}.json': [{resource: connector}, {resource: flow}],
  'POST /svc/resources/{resource}/run.json': [{input: {id: 7, q: 'x'}}],
  'POST /svc/connector/{code}/{method}': [{id: 1, q: 'x', nested: {a: 1}}],
  'POST /account/crons.json': [{cron: {...cron, input: {a: 1}}}], 'PATCH /account/crons/{cron}.json': [{cron}],
  'POST /svc/login': [{token: 'x'.repeat(43)}],
}

type Path = (string | number)[]

/** Every position in `value` (containers and leaves), the root included. */
export function positions(value: unknown, at: Path = []): Path[] {
  const out: Path[] = [at]
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...positions(v, [...at, i])))
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...positions(v, [...at, k]))
  return out
}

/** A copy of `value` with the value at `path` replaced (`add`: a new member `key` put into the object there instead). */
function mutate(value: unknown, path: Path, replacement: unknown, add?: string): unknown {
  if (path.length === 0) {
    if (add === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) return replacement
    const copy = {...value as object}
    Object.defineProperty(copy, add, {value: replacement, enumerable: true, writable: true, configurable: true})
    return copy
  }
  const [head, ...rest] = path
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? mutate(v, rest, replacement, add) : v))
  const copy: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value as object)) Object.defineProperty(copy, k, {value: k === head ? mutate(v, rest, replacement, add) : v, enumerable: true, writable: true, configurable: true})
  return copy
}

/** Seed bodies of `route` with 1-3 positions given hostile values (`hostile`), or undefined when the route has none. */
export function mutatedBody(route: string, hostile: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> | undefined {
  const seeds = SEED_BODIES[route]
  if (!seeds) return undefined
  const edit = fc.record({at: fc.nat(), value: hostile, add: fc.option(fc.oneof(fc.constantFrom(...PROTO), fc.string({maxLength: 8})), {freq: 4})})
  return fc.tuple(fc.constantFrom(...seeds), fc.array(edit, {minLength: 1, maxLength: 3})).map(([seed, edits]) => {
    let body = seed
    for (const e of edits) {
      const all = positions(body)
      body = mutate(body, all[e.at % all.length]!, e.value, e.add ?? undefined)
    }
    return body
  })
}
