// Text the stores cannot both keep (docs/dbs.md "Text"): a NUL character or a lone surrogate in
// any body member (record data, its keys, names, prompts) or query parameter is a 422 naming it,
// and a path parameter holding a NUL names nothing (404) — the same answer on SQLite and on
// PostgreSQL (run this file on both: scripts/pg-test-cluster.sh run npx vitest run ...). Before,
// SQLite stored them (201) and PostgreSQL answered 422 `{base}` or 400, and 422 on reads.
import {expect, it} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'

const NUL = 'must not contain a NUL character'
const SURROGATE = 'must be valid Unicode (it holds a lone surrogate)'
const SEED = {accounts: ['acme'], users: [{login: 'admin', role: 'admin' as const}]}

describeBothTransports('NUL and lone surrogates', SEED, (ctx) => {
  let db = 0
  let record = 0
  const count = async () => (await ctx().call('GET', `/svc/dbs/${db}/records.json?limit=100`)).json.length

  it('in record data (private create, update, import; public create): 422 naming the field, nothing written', async () => {
    const made = await ctx().call('POST', '/svc/dbs.json', {body: {db: {name: 'Texts', code: 'texts', schema: {fields: {name: 'string', note: 'text'}},
      public_methods: {create: {allowed_fields: ['name', 'note']}, list: true}}}})
    expect(made.status, made.text).toBe(201)
    db = made.json.id
    const ok = await ctx().call('POST', `/svc/dbs/${db}/records.json`, {body: {record: {data: {name: 'Ada'}}}})
    expect(ok.status, ok.text).toBe(201)
    record = ok.json.id
    for (const [bad, message] of [['a\u0000b', NUL], ['\u0000', NUL], ['x\ud800', SURROGATE], ['\udc00y', SURROGATE]] as const) {
      const cases: [string, string, unknown, Record<string, string[]>, (string | null)?][] = [
        ['POST', `/svc/dbs/${db}/records.json`, {record: {data: {name: 'A', note: bad}}}, {'data.note': [message]}],
        ['PATCH', `/svc/dbs/${db}/records/${record}.json`, {record: {data: {note: bad}}}, {'data.note': [message]}],
        ['POST', `/svc/dbs/${db}/import.json`, {records: [{data: {name: 'A'}}, {data: {name: bad}}]}, {'records[1].data.name': [message]}],
        ['POST', `/svc/dbs/${db}/records.json`, {record: {data: {[`k${bad}`]: 1}}}, {data: [`has a key that ${message}`]}],
        ['POST', '/svc/db/texts/create', {data: {name: bad}}, {'data.name': [message]}, null],
      ]
      for (const [method, url, body, fields, as] of cases) {
        const r = await ctx().call(method, url, {body, as: as === null ? null : 'admin'})
        expect(r.status, `${method} ${url} ${JSON.stringify(body)} → ${r.text}`).toBe(422)
        // Public methods answer `{error, fields}` (decisions.md).
        expect(as === null ? r.json.fields : r.json).toEqual(fields)
      }
    }
    expect(await count()).toBe(1)
    expect((await ctx().call('GET', `/svc/dbs/${db}/records/${record}.json`)).json.data).toEqual({name: 'Ada'})
  })

  it('in names, codes and prompt content: 422 naming the field', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/svc/dbs.json', {db: {name: 'a\u0000', code: 'nul_db'}}, 'name'],
      ['PATCH', `/svc/dbs/${db}.json`, {db: {name: 'b\ud800'}}, 'name'],
      ['POST', '/svc/prompts.json', {prompt: {name: 'P', code: 'nul_prompt', content: 'hi \u0000'}}, 'content'],
      ['POST', '/svc/resources.json', {resource: {kind: 'svc/custom_flow', code: 'nul_flow', name: 'x\udfff', fields: {program: []}}}, 'name'],
      ['POST', '/toolkit/dashboards.json', {dashboard: {name: 'D\u0000', context: 'main', layout: []}}, 'name'],
    ]
    for (const [method, url, body, field] of cases) {
      const r = await ctx().call(method, url, {body})
      expect(r.status, `${method} ${url} → ${r.text}`).toBe(422)
      expect(Object.keys(r.json)).toEqual([field])
    }
    expect((await ctx().call('GET', `/svc/dbs/${db}.json`)).json.name).toBe('Texts')
  })

  it('in query parameters (q, filter values, lists): 422 naming the parameter', async () => {
    for (const [url, field, as] of [
      [`/svc/dbs/${db}/search.json?q=a%00b`, 'q'], [`/svc/dbs/${db}/search.json?filter[name]=a%00`, 'filter[name]'],
      ['/svc/prompts.json?kind=%00', 'kind'], ['/svc/resources.json?q=%00', 'q'],
      ['/svc/db/texts/list?sort=%00', 'sort', null], ['/connect/flow_processes.json?status=x%00', 'status'],
    ] as [string, string, null?][]) {
      const r = await ctx().call('GET', url, {as: as === null ? null : 'admin'})
      expect(r.status, `${url} → ${r.text}`).toBe(422)
      expect(as === null ? r.json.fields : r.json).toEqual({[field]: [NUL]})
    }
    // A table name holding a NUL names no table: the 400 of an unknown table (platform-api.md, Errors;
    // issue 38), decided before the character rules. test/dbs/unknown-table.test.ts has the multi-table case.
    const table = await ctx().call('GET', `/svc/dbs/${db}/records.json?table_name=%00`)
    expect(table.status, table.text).toBe(400)
    expect(table.json).toEqual({error: 'this database has no tables; leave table_name out', available_tables: []})
  })

  it('in path parameters: 404, as for any name that does not exist', async () => {
    for (const [url, as] of [
      ['/svc/dbs/%00.json'], ['/svc/dbs/%00/usage.json'], [`/svc/dbs/${db}/records/%00.json`], ['/svc/prompts/%00.json'], ['/svc/prompt/a%00.md'],
      ['/svc/apps/%00.json'], ['/svc/resources/%00.json'], ['/account/crons/%00.json'], ['/connect/flow_processes/%00.json'],
      ['/svc/db/%00/list', null], ['/svc/db/texts%00/list', null], ['/svc/connector/a%00/b', null],
    ] as [string, null?][]) {
      const r = await ctx().call('GET', url, {as: as === null ? null : 'admin'})
      expect(r.status, `${url} → ${r.text}`).toBe(404)
    }
  })
})
