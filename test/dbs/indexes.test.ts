import {expect, it} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'

/**
 * When a schema change alters the index plan (PATCH /svc/dbs/:id.json, PATCH .../replace.json), the
 * index columns of the records already stored are rebuilt: an indexed filter or sort reads the
 * column, so a record whose column was left stale would be missed or misplaced.
 */
describeBothTransports('index columns are rebuilt when the schema changes', undefined, (ctx) => {
  const long = 'x'.repeat(255)
  const rows = [
    {name: 'Ann', age: 30, born: '1990-05-01', city: 'Oslo'},
    {name: 'Ben', age: 25, born: '1985-01-01', city: 'Rome'},
    {name: 'Cy', age: 30, born: '2001-12-31', city: 'Oslo'},
    {name: `${long}A`, age: 40, born: '1970-01-01'}, // two names that share the 255 characters a column holds
    {name: `${long}B`, age: 41, born: '1971-01-01'},
    {name: 'Dee'},
  ]
  const ids: number[] = []
  let dbId = 0
  const names = async (qs: string) => {
    const r = await ctx().call('GET', `/svc/dbs/${dbId}/search.json?${qs.includes('limit=') ? '' : 'limit=100&'}${qs}`)
    expect(r.status, `${qs} → ${r.text}`).toBe(200)
    return r.json.map((x: any) => (x.name.startsWith(long) ? `long${x.name.slice(-1)}` : x.name))
  }

  it('seeds records before any index exists', async () => {
    const c = ctx()
    const schema = {fields: {name: 'string', age: 'integer', born: 'date', city: 'string'}}
    const r = await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Ix', code: 'ix', schema}}})
    expect(r.status).toBe(201)
    dbId = r.json.id
    for (const data of rows) ids.push((await c.call('POST', `/svc/dbs/${dbId}/records.json`, {body: {record: {data}}})).json.id)
    expect(await names('filter[age]=30')).toEqual(['Cy', 'Ann'])
  })

  it('PATCH adding indexes: old records are found by indexed filters and sorts', async () => {
    const c = ctx()
    const r = await c.call('PATCH', `/svc/dbs/${dbId}.json`, {body: {db: {schema: {
      fields: {name: 'string', age: 'integer', born: 'date', city: 'string'}, indexed_fields: ['name', 'age', 'born'],
    }}}})
    expect(r.status, r.text).toBe(200)
    expect(await names('filter[age]=30')).toEqual(['Cy', 'Ann'])
    expect(await names('filter[age]=41')).toEqual(['longB'])
    expect(await names(`filter[name]=${long}A`)).toEqual(['longA'])
    expect(await names('filter[name]=Ben')).toEqual(['Ben'])
    expect(await names('filter[born]=2001-12-31')).toEqual(['Cy'])
    // Ascending: a record without the field first; ties by id.
    expect(await names('sort=age')).toEqual(['Dee', 'Ben', 'Ann', 'Cy', 'longA', 'longB'])
    expect(await names('sort=-born')).toEqual(['Cy', 'Ann', 'Ben', 'longB', 'longA', 'Dee'])
    expect(await names('sort=name&limit=3')).toEqual(['Ann', 'Ben', 'Cy'])
    // A record written after the change is indexed as well.
    await c.call('POST', `/svc/dbs/${dbId}/records.json`, {body: {record: {data: {name: 'Eve', age: '30', city: 'Oslo'}}}})
    expect(await names('filter[age]=30')).toEqual(['Eve', 'Cy', 'Ann'])
  })

  it('replace.json moving and adding indexes: the columns follow', async () => {
    const c = ctx()
    // city takes the first string column, name moves to the second.
    const r = await c.call('PATCH', `/svc/dbs/${dbId}/replace.json`, {body: {field: 'schema', old: '"indexed_fields":["name"', new: '"indexed_fields":["city","name"'}})
    expect(r.status, r.text).toBe(200)
    expect(r.json.schema.indexed_fields).toEqual(['city', 'name', 'age', 'born'])
    expect(await names('filter[city]=Oslo')).toEqual(['Eve', 'Cy', 'Ann'])
    expect(await names('filter[city]=Rome')).toEqual(['Ben'])
    expect(await names(`filter[name]=${long}B`)).toEqual(['longB'])
    expect(await names('filter[name]=Cy')).toEqual(['Cy'])
    expect(await names('sort=city')).toEqual(['longA', 'longB', 'Dee', 'Ann', 'Cy', 'Eve', 'Ben'])
    expect(await names('sort=-name&limit=2')).toEqual(['longB', 'longA'])
  })

  it('dropping the indexes: filters and sorts still answer from the data', async () => {
    const c = ctx()
    const r = await c.call('PATCH', `/svc/dbs/${dbId}.json`, {body: {db: {schema: {fields: {name: 'string', age: 'integer', born: 'date', city: 'string'}}}}})
    expect(r.status, r.text).toBe(200)
    expect(await names('filter[age]=30')).toEqual(['Eve', 'Cy', 'Ann'])
    expect(await names('filter[city]=Oslo')).toEqual(['Eve', 'Cy', 'Ann'])
    expect(await names(`filter[name]=${long}A`)).toEqual(['longA'])
    expect(await names('sort=-age&limit=3')).toEqual(['longB', 'longA', 'Eve'])
  })

  it('multi-table: each table is rebuilt by its own plan', async () => {
    const c = ctx()
    const before = {tables: {a: {fields: {k: 'string', n: 'integer'}}, b: {fields: {k: 'string', n: 'integer'}, indexed_fields: ['n']}}}
    const id = (await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Mt', code: 'mt', schema: before}}})).json.id
    for (const [table_name, data] of [['a', {k: 'x', n: 1}], ['a', {k: 'y', n: 2}], ['b', {k: 'x', n: 2}], ['b', {k: 'y', n: 1}]] as const) {
      expect((await c.call('POST', `/svc/dbs/${id}/records.json`, {body: {record: {table_name, data}}})).status).toBe(201)
    }
    const after = {tables: {a: {fields: {k: 'string', n: 'integer'}, indexed_fields: ['n']}, b: {fields: {k: 'string', n: 'integer'}, indexed_fields: ['k']}}}
    expect((await c.call('PATCH', `/svc/dbs/${id}.json`, {body: {db: {schema: after}}})).status).toBe(200)
    const ks = async (qs: string) => (await c.call('GET', `/svc/dbs/${id}/search.json?${qs}`)).json.map((x: any) => x.k)
    expect(await ks('table_name=a&filter[n]=2')).toEqual(['y'])
    expect(await ks('table_name=a&sort=-n')).toEqual(['y', 'x'])
    expect(await ks('table_name=b&filter[k]=x')).toEqual(['x'])
    expect(await ks('table_name=b&filter[n]=1')).toEqual(['y'])
    expect(await ks('table_name=b&sort=k')).toEqual(['x', 'y'])
    expect(await ks('table_name=b&sort=-n')).toEqual(['x', 'y'])
  })
})
