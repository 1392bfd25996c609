import {runScenarios} from '../helpers/scenarios.js'

/** The rules of a db definition now said by core/contract/dbs.ts: each answers the 422 field map it always did. */
const post = (name: string, db: unknown, expectedContent: unknown, expectedStatus = 422) =>
  ({name, method: 'POST' as const, url: '/svc/dbs.json', body: {db}, expectedStatus, expectedContent})

runScenarios('db definitions checked by the contract schemas', undefined, [
  post('name, code and app_id of the wrong kinds', {name: 5, code: 'a b', app_id: 3}, {
    name: ["can't be blank"], code: ['must be 1-64 letters, digits, _ or -, starting with a letter or digit'], app_id: ['must be a UUID'],
  }),
  post('a name over 200 characters', {name: 'a'.repeat(201)}, {name: ['is too long (max 200 characters)']}),
  post('an index column of the wrong family, indexed_fields naming no field', {
    name: 'x', schema: {fields: {a: 'string'}, indexes: {a: 'idx_int_1'}, indexed_fields: ['zz']},
  }, {'schema.indexes.a': ['idx_int_1 does not fit a string field'], 'schema.indexed_fields': ['names "zz", which is not a field of the schema']}),
  post('a field definition with a non-boolean required', {name: 'x', schema: {fields: {a: {type: 'string', required: 'yes'}}}},
    {'schema.fields.a': ['required must be true or false']}),
  post('unknown schema keys, and tables that name none', {name: 'x', schema: {foo: 1}}, {schema: ['has unknown keys: foo']}),
  post('tables that name none', {name: 'x', schema: {tables: {}}}, {'schema.tables': ['must name at least one table']}),
  post('public method options', {name: 'x', public_methods: {list: 5, get: {allowed_fields: [1], zz: 1}, create: {auto_fields: {o: '{nope}'}}}}, {
    'public_methods.list': ['must be true, false or an options object'],
    'public_methods.get': ['has unknown options: zz'],
    'public_methods.get.allowed_fields': ['must be an array of field names'],
    'public_methods.create.auto_fields.o': ['must be a string using {ip}, {cookie_key}, {user_id} or {user_name}'],
  }),
  post('an empty code and schema read as none', {name: ' Trimmed ', code: '', schema: {}}, {name: 'Trimmed', code: null, schema: null}, 201),
  {name: 'a record whose data is not an object', method: 'POST', url: '/svc/dbs/1/records.json', body: {record: {data: [1], table_name: 5}}, expectedStatus: 422,
    expectedContent: {data: ['must be an object'], table_name: ['must be a string']}},
  {name: 'a replace body without its strings', method: 'PATCH', url: '/svc/dbs/1/replace.json', body: {field: 'schema'}, expectedStatus: 422,
    expectedContent: {old_string: ["can't be blank"], new_string: ['is required (a string, may be empty)']}},
])
