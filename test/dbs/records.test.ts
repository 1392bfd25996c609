import {expect, it} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'
import {rawQuery} from '../helpers/pg.js'

const typed = {
  name: 'Typed', code: 'typed',
  schema: {
    fields: {
      title: {type: 'string', required: true}, body: 'text', qty: 'integer', price: 'number', done: 'boolean',
      at: 'datetime', day: 'date', clock: 'time',
    },
    indexed_fields: ['title', 'qty', 'at', 'body', 'price', 'day', 'clock'],
  },
}

const multi = {
  name: 'Shop', code: 'shop',
  schema: {tables: {
    products: {fields: {sku: {type: 'string', required: true}, stock: 'integer'}, indexed_fields: ['sku', 'stock']},
    orders: {fields: {number: {type: 'integer', required: true}, placed: 'date'}, indexed_fields: ['number', 'placed']},
  }},
}

describeBothTransports('records', undefined, (ctx) => {
  let dbId = 0
  let shopId = 0
  const raw = (id: number) => ctx().world.store.dbs // repository view of stored rows
  void raw

  it('creates a record: types converted, nested data shape, 201', async () => {
    const c = ctx()
    dbId = (await c.call('POST', '/svc/dbs.json', {body: {db: typed}})).json.id
    const r = await c.call('POST', `/svc/dbs/${dbId}/records.json`, {body: {record: {data: {
      title: 'Widget', body: 'long text', qty: '42', price: '9.5', done: 'true', at: '2026-03-01T10:00:00+02:00', day: '2026-03-01', clock: '9:30'.padStart(5, '0'), extra: {free: 'form'},
    }}}})
    expect(r.status, r.text).toBe(201)
    expect(r.json).toMatchObject({id: expect.any(Number), table_name: null, created_at: expect.any(String), updated_at: expect.any(String), data: {
      title: 'Widget', body: 'long text', qty: 42, price: 9.5, done: true, at: '2026-03-01T08:00:00.000Z', day: '2026-03-01', clock: '09:30:00', extra: {free: 'form'},
    }})
  })

  it('rejects bad values with a field map; required applies', async () => {
    const c = ctx()
    const r = await c.call('POST', `/svc/dbs/${dbId}/records.json`, {body: {record: {data: {qty: '4.2', price: 'cheap', done: 'maybe', at: 'yesterday', day: '2026-02-30', clock: '25:00'}}}})
    expect(r.status).toBe(422)
    expect(r.json).toEqual({
      title: ['is required'], qty: ['must be an integer'], price: ['must be a number'], done: ['must be true or false'],
      at: ['must be an ISO 8601 date-time'], day: ['must be a date (YYYY-MM-DD)'], clock: ['must be a time (HH:MM or HH:MM:SS)'],
    })
    expect((await c.call('POST', `/svc/dbs/${dbId}/records.json`, {body: {record: {}}})).json).toEqual({data: ['is required']})
    expect((await c.call('POST', `/svc/dbs/${dbId}/records.json`, {body: {record: {data: {title: 'x'}, table_name: 'x'}}})).status).toBe(422)
  })

  it('index columns hold the indexed values and follow every write', async () => {
    const c = ctx()
    // The storage itself, on either store (PostgreSQL may read numbers as numeric text).
    const first = async (columns: string) => {
      const r = (await rawQuery(c.world, `SELECT id, ${columns} FROM db_records WHERE db_id = ? ORDER BY id LIMIT 1`, [dbId]))[0]
      for (const k of Object.keys(r)) if (typeof r[k] === 'string' && /^idx_int/.test(k)) r[k] = Number(r[k])
      return r
    }
    const row = async () => {
      const {id: _, ...columns} = await first('idx_str_1, idx_str_2, idx_int_1, idx_int_2, idx_time_1, idx_time_2')
      return columns
    }
    // title→str_1, qty→int_1, at→time_1, body→str_2, price→int_2, day→time_2, clock: overflow, not indexed
    expect(await row()).toEqual({idx_str_1: 'Widget', idx_str_2: 'long text', idx_int_1: 42, idx_int_2: 9.5, idx_time_1: '2026-03-01T08:00:00.000Z', idx_time_2: '2026-03-01'})
    const id = Number((await first('idx_str_1')).id)
    const p = await c.call('PATCH', `/svc/dbs/${dbId}/records/${id}.json`, {body: {record: {data: {qty: 7, title: 'x'.repeat(300)}}}})
    expect(p.status, p.text).toBe(200)
    expect(p.json.data).toMatchObject({qty: 7, body: 'long text'}) // merged over the stored data
    expect(await row()).toMatchObject({idx_int_1: 7, idx_str_1: 'x'.repeat(255)})
    // A schema change rebuilds the columns: index the fields the other way round.
    const u = await c.call('PATCH', `/svc/dbs/${dbId}.json`, {body: {db: {schema: {...typed.schema, indexed_fields: undefined, indexes: {body: 'idx_str_3', price: 'idx_int_1'}}}}})
    expect(u.status, u.text).toBe(200)
    expect(await row()).toEqual({idx_str_1: null, idx_str_2: null, idx_int_1: 9.5, idx_int_2: null, idx_time_1: null, idx_time_2: null})
    expect((await first('idx_str_3')).idx_str_3).toBe('long text')
    const bad = await c.call('PATCH', `/svc/dbs/${dbId}.json`, {body: {db: {schema: {fields: {a: 'boolean'}, indexes: {a: 'idx_int_1'}}}}})
    expect(bad.status).toBe(422)
  })

  it('get, list newest first with limit/offset/sort, delete', async () => {
    const c = ctx()
    const ids: number[] = []
    for (const t of ['b', 'c', 'a']) ids.push((await c.call('POST', `/svc/dbs/typed/records.json`, {body: {record: {data: {title: t, qty: t.charCodeAt(0)}}}})).json.id)
    let r = await c.call('GET', `/svc/dbs/typed/records.json`)
    expect(r.json.map((x: any) => x.id)).toEqual([ids[2], ids[1], ids[0], ids[0]! - 1])
    expect(Object.keys(r.json[0]).sort()).toEqual(['created_at', 'data', 'id', 'table_name', 'updated_at'])
    r = await c.call('GET', `/svc/dbs/typed/records.json?limit=2&offset=1`)
    expect(r.json.map((x: any) => x.id)).toEqual([ids[1], ids[0]])
    r = await c.call('GET', `/svc/dbs/typed/records.json?sort=title&limit=3`)
    expect(r.json.map((x: any) => x.data.title)).toEqual(['a', 'b', 'c'])
    r = await c.call('GET', `/svc/dbs/typed/records.json?sort=-qty&limit=1`)
    expect(r.json[0].data.title).toBe('c')
    expect((await c.call('GET', `/svc/dbs/typed/records.json?limit=0`)).status).toBe(422)
    expect((await c.call('GET', `/svc/dbs/typed/records.json?limit=101`)).json).toEqual({limit: ['must be an integer between 1 and 100']})
    expect((await c.call('GET', `/svc/dbs/typed/records/${ids[0]}.json`)).json.data.title).toBe('b')
    expect((await c.call('GET', `/svc/dbs/typed/records/${ids[0]}.json`, {as: 'mallory'})).status).toBe(404)
    expect((await c.call('DELETE', `/svc/dbs/typed/records/${ids[0]}.json`, {as: 'mallory'})).status).toBe(404)
    expect((await c.call('PATCH', `/svc/dbs/typed/records/${ids[0]}.json`, {as: 'mallory', body: {record: {data: {}}}})).status).toBe(404)
    expect((await c.call('DELETE', `/svc/dbs/typed/records/${ids[0]}.json`)).status).toBe(204)
    expect((await c.call('GET', `/svc/dbs/typed/records/${ids[0]}.json`)).status).toBe(404)
    expect((await c.call('GET', `/svc/dbs/typed/records/abc.json`)).status).toBe(404)
  })

  it('multi-table: table_name required on create, validated per table; PATCH without it returns to the null table', async () => {
    const c = ctx()
    shopId = (await c.call('POST', '/svc/dbs.json', {body: {db: multi}})).json.id
    const url = `/svc/dbs/${shopId}/records.json`
    expect((await c.call('POST', url, {body: {record: {data: {sku: 'A'}}}})).json).toEqual({table_name: ['is required; one of: products, orders']})
    expect((await c.call('POST', url, {body: {record: {table_name: 'nope', data: {}}}})).json.table_name[0]).toContain('not a table')
    // required applies only within its own table
    expect((await c.call('POST', url, {body: {record: {table_name: 'orders', data: {sku: 'A'}}}})).json).toEqual({number: ['is required']})
    const p = await c.call('POST', url, {body: {record: {table_name: 'products', data: {sku: 'A-1', stock: '5'}}}})
    expect(p.status).toBe(201)
    expect(p.json).toMatchObject({table_name: 'products', data: {sku: 'A-1', stock: 5}})
    const o = await c.call('POST', url, {body: {record: {table_name: 'orders', data: {number: '1001', placed: '2026-01-02'}}}})
    expect(o.json).toMatchObject({table_name: 'orders', data: {number: 1001}})
    // The index columns themselves, on either store.
    const one = async (sql: string, id: number) => {
      const r = (await rawQuery(c.world, sql, [id]))[0]
      for (const k of Object.keys(r)) if (typeof r[k] === 'string' && /^idx_int/.test(k)) r[k] = Number(r[k])
      return r
    }
    // Different tables reuse the same columns.
    expect(await one('SELECT idx_str_1, idx_int_1 FROM db_records WHERE id = ?', p.json.id)).toEqual({idx_str_1: 'A-1', idx_int_1: 5})
    expect(await one('SELECT idx_int_1, idx_time_1 FROM db_records WHERE id = ?', o.json.id)).toEqual({idx_int_1: 1001, idx_time_1: '2026-01-02'})
    let r = await c.call('GET', `${url}?table_name=products`)
    expect(r.json.map((x: any) => x.id)).toEqual([p.json.id])
    expect((await c.call('GET', `${url}?table_name=zzz`)).json).toMatchObject({available_tables: ['products', 'orders']})
    r = await c.call('PATCH', `/svc/dbs/${shopId}/records/${p.json.id}.json`, {body: {record: {data: {stock: 'lots'}}}})
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({table_name: null, data: {sku: 'A-1', stock: 'lots'}})
    expect(await one('SELECT idx_str_1, idx_int_1 FROM db_records WHERE id = ?', p.json.id)).toEqual({idx_str_1: null, idx_int_1: null})
    r = await c.call('PATCH', `/svc/dbs/${shopId}/records/${p.json.id}.json`, {body: {record: {table_name: 'products', data: {stock: 'lots'}}}})
    expect(r.json).toEqual({stock: ['must be an integer']})
    r = await c.call('PATCH', `/svc/dbs/${shopId}/records/${p.json.id}.json`, {body: {record: {table_name: 'products', data: {stock: 3}}}})
    expect(r.json).toMatchObject({table_name: 'products', data: {stock: 3}})
    expect((await c.call('GET', url)).json).toHaveLength(2)
  })

  it('usage reports records per table and per field', async () => {
    const c = ctx()
    const r = await c.call('GET', `/svc/dbs/${shopId}/usage.json`)
    expect(r.status).toBe(200)
    expect(r.json.records_count).toBe(2)
    expect(r.json.tables).toEqual(expect.arrayContaining([
      {table_name: 'products', records_count: 1, fields: {sku: 1, stock: 1}},
      {table_name: 'orders', records_count: 1, fields: {number: 1, placed: 1}},
    ]))
    // fields=false: the counts without the per-field count (which reads every record); the console's grid asks this.
    const counts = await c.call('GET', `/svc/dbs/${shopId}/usage.json?fields=false`)
    expect(counts.json.records_count).toBe(2)
    expect(counts.json.tables).toEqual(expect.arrayContaining([
      {table_name: 'products', records_count: 1, fields: {}},
      {table_name: 'orders', records_count: 1, fields: {}},
    ]))
    const bad = await c.call('GET', `/svc/dbs/${shopId}/usage.json?fields=maybe`)
    expect(bad.status).toBe(400)
    expect(bad.json).toEqual({error: 'fields must be true or false'})
  })

  it('import inserts a batch all or nothing', async () => {
    const c = ctx()
    const url = `/svc/dbs/${shopId}/import.json`
    let r = await c.call('POST', url, {body: {records: [{table_name: 'orders', data: {number: 1}}, {table_name: 'orders', data: {number: 'x'}}]}})
    expect(r.status).toBe(422)
    expect(r.json).toEqual({'records[1].number': ['must be an integer']})
    r = await c.call('POST', url, {body: {records: [{table_name: 'orders', data: {number: 1}}, {table_name: 'orders', data: {number: 2}}]}})
    expect(r.json).toEqual({imported: 2})
    expect((await c.call('GET', `/svc/dbs/${shopId}.json`)).json.records_count).toBe(4)
  })
})
