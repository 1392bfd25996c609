// Values that are objects whose toString/valueOf are not functions (`{"toString": 1}`) where a
// name or a path is expected (docs/security.md "Hostile values"): a 422 naming the field, never a
// 500 from a `String(v)` or `${v}` of them, on both stores (the PostgreSQL half runs this file too).
import {describe, expect, it} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'

const HOSTILE = [{toString: 1}, {toString: {}}, {toString: 'x', valueOf: 2}, {valueOf: {}, toString: []}, JSON.parse('{"constructor": 1, "__proto__": {"toString": 2}}')]
const SEED = {accounts: ['acme'], users: [{login: 'admin', role: 'admin' as const}]}

describe('hostile values', () => {
  describeBothTransports('a name or path that is an object with a non-callable toString', SEED, (ctx) => {
    const dbBody = (schema: unknown) => ({db: {name: 'Hostile', code: 'hostile', schema}})
    const schemas = (v: unknown) => [
      {fields: {a: 'string'}, indexed_fields: [v]},
      {fields: {a: 'string'}, indexed_fields: ['a', v]},
      {tables: {t: {fields: {a: 'string'}, indexed_fields: [v]}}},
    ]

    it('in schema.indexed_fields of a db create: 422 naming schema.indexed_fields', async () => {
      for (const v of HOSTILE) {
        for (const schema of schemas(v)) {
          const r = await ctx().call('POST', '/svc/dbs.json', {body: dbBody(schema)})
          expect(r.status, `${JSON.stringify(schema)} → ${r.text}`).toBe(422)
          expect(Object.keys(r.json).join(), r.text).toMatch(/schema\.(tables\.t\.)?indexed_fields/)
          expect(r.text).not.toContain('[object Object]')
        }
      }
    })

    it('in schema.indexed_fields of a db update: 422, and the db unchanged', async () => {
      const created = await ctx().call('POST', '/svc/dbs.json', {body: dbBody({fields: {a: 'string'}, indexed_fields: ['a']})})
      expect(created.status, created.text).toBe(201)
      for (const v of HOSTILE) {
        for (const schema of schemas(v)) {
          const r = await ctx().call('PATCH', `/svc/dbs/${created.json.id}.json`, {body: dbBody(schema)})
          expect(r.status, `${JSON.stringify(schema)} → ${r.text}`).toBe(422)
        }
      }
      const after = await ctx().call('GET', `/svc/dbs/${created.json.id}.json`)
      expect(after.json.schema).toEqual(created.json.schema)
    })

    it('as a connector method\'s name or path (create and update): 422 naming fields.methods', async () => {
      const connector = (method: object) => ({resource: {kind: 'svc/custom_connector', code: 'hostile', name: 'h', url: 'http://127.0.0.1:9',
        fields: {methods: [method]}}})
      const made = await ctx().call('POST', '/svc/resources.json', {body: connector({name: 'ok', http_method: 'GET', path: '/ok'})})
      expect(made.status, made.text).toBe(201)
      for (const v of HOSTILE) {
        for (const method of [{name: v, path: '/x'}, {name: 'x', path: v}, {name: v, path: v, http_method: v, description: v}]) {
          for (const [verb, url] of [['POST', '/svc/resources.json'], ['PATCH', `/svc/resources/${made.json.id}.json`]] as const) {
            const r = await ctx().call(verb, url, {body: connector(method)})
            expect(r.status, `${verb} ${JSON.stringify(method)} → ${r.text}`).toBe(422)
            expect(Object.keys(r.json)).toEqual(['fields.methods'])
          }
        }
      }
    })
  })
})
