import {expect, it} from 'vitest'
import {describeBothTransports, runScenarios} from '../helpers/scenarios.js'

const contacts = {
  name: 'Contacts', code: 'contacts',
  schema: {fields: {name: {type: 'string', required: true}, age: 'integer', email: 'string'}, indexed_fields: ['email', 'age']},
  public_methods: {list: true},
}

runScenarios('database CRUD', undefined, [
  {name: 'no token: 401', method: 'GET', url: '/svc/dbs.json', as: null, expectedStatus: 401},
  {name: 'an empty list', method: 'GET', url: '/svc/dbs.json', expectedStatus: 200, expectedContent: []},
  {
    name: 'create answers 201 with the full object and integer id',
    method: 'POST', url: '/svc/dbs.json', body: {db: contacts}, expectedStatus: 201,
    expectedContent: {id: 1, name: 'Contacts', code: 'contacts', app_id: null, schema: contacts.schema, public_methods: {list: true},
      fields: {}, records_count: 0, created_at: expect.any(String), updated_at: expect.any(String)},
  },
  {name: 'a blank name: 422 field map', method: 'POST', url: '/svc/dbs.json', body: {db: {name: ' '}}, expectedStatus: 422, expectedContent: {name: ["can't be blank"]}},
  {name: 'a duplicate code in the account: 422', method: 'POST', url: '/svc/dbs.json', body: {db: {name: 'x', code: 'contacts'}}, expectedStatus: 422, expectedContent: {code: ['has already been taken']}},
  {name: 'the same code in another account is fine', method: 'POST', url: '/svc/dbs.json', as: 'mallory', body: {db: {name: 'x', code: 'contacts'}}, expectedStatus: 201},
  {name: 'a digits-only code: 422', method: 'POST', url: '/svc/dbs.json', body: {db: {name: 'x', code: '123'}}, expectedStatus: 422, expectedContent: {code: [expect.any(String)]}},
  {name: 'a bad app_id: 422', method: 'POST', url: '/svc/dbs.json', body: {db: {name: 'x', app_id: 'nope'}}, expectedStatus: 422, expectedContent: {app_id: ['must be a UUID']}},
  {
    name: 'tables and fields together: 422', method: 'POST', url: '/svc/dbs.json',
    body: {db: {name: 'x', schema: {fields: {a: 'string'}, tables: {t: {fields: {b: 'string'}}}}}}, expectedStatus: 422,
    expectedContent: {schema: ['uses either tables or top-level fields, not both']},
  },
  {
    name: 'an unknown type: 422', method: 'POST', url: '/svc/dbs.json',
    body: {db: {name: 'x', schema: {fields: {a: 'money'}}}}, expectedStatus: 422, expectedContent: {'schema.fields.a': [expect.stringContaining('unknown type')]},
  },
  {
    name: 'an injection string as a field name: 422, never 500', method: 'POST', url: '/svc/dbs.json',
    body: {db: {name: 'x', schema: {fields: {'a"); DROP TABLE dbs; --': 'string'}}}}, expectedStatus: 422,
  },
  {
    name: 'an unknown public method: 422', method: 'POST', url: '/svc/dbs.json',
    body: {db: {name: 'x', public_methods: {drop: true}}}, expectedStatus: 422, expectedContent: {public_methods: [expect.stringContaining('unknown method')]},
  },
  {
    name: 'scope_by without an auto_fields entry: 422', method: 'POST', url: '/svc/dbs.json',
    body: {db: {name: 'x', public_methods: {list: {scope_by: 'owner'}}}}, expectedStatus: 422, expectedContent: {'public_methods.list.scope_by': [expect.any(String)]},
  },
  {name: 'get by id', method: 'GET', url: '/svc/dbs/1.json', expectedStatus: 200, expectedContent: {id: 1, code: 'contacts'}},
  {name: 'get by code', method: 'GET', url: '/svc/dbs/contacts.json', expectedStatus: 200, expectedContent: {id: 1}},
  {name: 'another account cannot see it: 404', method: 'GET', url: '/svc/dbs/1.json', as: 'mallory', expectedStatus: 404, expectedContent: {error: 'database not found'}},
  {name: 'mallory sees only her own db by that code', method: 'GET', url: '/svc/dbs/contacts.json', as: 'mallory', expectedStatus: 200, expectedContent: {id: 2, name: 'x'}},
  {name: 'list of the account only', method: 'GET', url: '/svc/dbs.json', expectedStatus: 200, expectedContent: [{id: 1}]},
  {name: 'PATCH answers the full object', method: 'PATCH', url: '/svc/dbs/contacts.json', body: {db: {name: 'People', fields: {color: 'red'}}}, expectedStatus: 200, expectedContent: {id: 1, name: 'People', code: 'contacts', fields: {color: 'red'}, schema: contacts.schema}},
  {name: 'PATCH validates', method: 'PATCH', url: '/svc/dbs/1.json', body: {db: {schema: {fields: {a: {type: 'string', required: 'yes'}}}}}, expectedStatus: 422},
  {name: 'bad JSON: 400', method: 'PATCH', url: '/svc/dbs/1.json', rawBody: '{nope', expectedStatus: 400, expectedContent: {error: 'invalid JSON body'}},
  {name: 'DELETE of a foreign db: 404', method: 'DELETE', url: '/svc/dbs/1.json', as: 'mallory', expectedStatus: 404},
])

describeBothTransports('replace and delete', undefined, (ctx) => {
  it('replaces in schema, public_methods and fields, with the decisions.md errors', async () => {
    const c = ctx()
    const created = await c.call('POST', '/svc/dbs.json', {body: {db: contacts}})
    expect(created.status).toBe(201)
    const url = `/svc/dbs/${created.json.id}/replace.json`
    let r = await c.call('PATCH', url, {body: {field: 'schema', old_string: '"age": "integer"', new_string: '"age": "number"'}})
    expect(r.status, r.text).toBe(200)
    expect(r.json.schema.fields.age).toBe('number')
    r = await c.call('PATCH', url, {body: {field: 'schema', old: '"age":"number"', new: '"age":"integer"'}})
    expect(r.status, r.text).toBe(200)
    expect(r.json.schema.fields.age).toBe('integer')
    r = await c.call('PATCH', url, {body: {field: 'schema', old_string: 'nothing like this', new_string: 'x'}})
    expect(r.status).toBe(422)
    expect(r.json).toEqual({old_string: ['not found']})
    r = await c.call('PATCH', url, {body: {field: 'schema', old_string: '"string"', new_string: '"text"'}})
    expect(r.json).toEqual({old_string: ['matches 2 places; send replace_all']})
    r = await c.call('PATCH', url, {body: {field: 'schema', old_string: '"string"', new_string: '"text"', replace_all: true}})
    expect(r.status).toBe(200)
    expect(r.json.schema.fields.email).toBe('text')
    r = await c.call('PATCH', url, {body: {field: 'schema', old_string: '"integer"', new_string: '"integer'}})
    expect(r.status).toBe(422)
    expect(r.json.new_string[0]).toContain('invalid JSON')
    r = await c.call('PATCH', url, {body: {field: 'schema', old_string: '"integer"', new_string: '"money"'}})
    expect(r.status).toBe(422)
    expect(r.json['schema.fields.age']).toBeDefined()
    r = await c.call('PATCH', url, {body: {field: 'public_methods', old_string: '"list": true', new_string: '"list": true, "drop": true'}})
    expect(r.status).toBe(422)
    r = await c.call('PATCH', url, {body: {field: 'public_methods', old_string: '"list": true', new_string: '"list": true, "get": true'}})
    expect(r.json.public_methods).toEqual({list: true, get: true})
    r = await c.call('PATCH', url, {body: {field: 'fields', old_string: '{}', new_string: '{"a": 1}'}})
    expect(r.json.fields).toEqual({a: 1})
    r = await c.call('PATCH', url, {body: {field: 'name', old_string: 'a', new_string: 'b'}})
    expect(r.status).toBe(422)
    expect(r.json.field).toBeDefined()
  })

  it('DELETE removes the db with its records (204), then 404 (the records are kept for a restore until retention: docs/history.md)', async () => {
    const c = ctx()
    const db = (await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Tmp', code: 'tmp'}}})).json
    await c.call('POST', `/svc/dbs/${db.id}/records.json`, {body: {record: {data: {a: 1}}}})
    const rec = await c.call('POST', `/svc/dbs/${db.id}/records.json`, {body: {record: {data: {a: 2}}}})
    expect((await c.call('GET', '/svc/dbs/tmp.json')).json.records_count).toBe(2)
    const del = await c.call('DELETE', '/svc/dbs/tmp.json')
    expect(del.status).toBe(204)
    expect(del.text).toBe('')
    expect((await c.call('GET', '/svc/dbs/tmp.json')).status).toBe(404)
    expect((await c.call('GET', `/svc/dbs/${db.id}/records/${rec.json.id}.json`)).status).toBe(404)
    expect((await c.call('GET', `/svc/dbs/${db.id}/records.json`)).status).toBe(404)
    expect(await c.world.store.dbs.get(c.world.users.admin!.accountId, String(db.id))).toBeNull()
  })
})
