// platform-api.md, Errors: a multi-table database searched with an unknown `table_name` answers
// 400 `{error, available_tables}`. A name holding a NUL character names no table either: it is
// that 400 too, on both stores (issue 38: it was a 422 "cannot store"), decided before the store's
// character rules. A record written with such a table is the 422 of any unknown table.
import {expect, it} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'

const SHOP = {name: 'Shop', code: 'shop', public_methods: {search: true, create: true},
  schema: {tables: {products: {fields: {sku: 'string'}}, orders: {fields: {total: 'integer'}}}}}

describeBothTransports('dbs: an unknown table_name, a NUL in it included', undefined, (ctx) => {
  it('search: 400 with available_tables, private and public, whatever characters the name holds', async () => {
    const db = await ctx().call('POST', '/svc/dbs.json', {body: {db: SHOP}})
    expect(db.status, db.text).toBe(201)
    const available = ['orders', 'products']
    for (const name of ['nope', 'prod\u0000ucts', '\u0000', 'products\u0000']) {
      const query = `table_name=${encodeURIComponent(name)}`
      const searched = await ctx().call('GET', `/svc/dbs/${db.json.id}/records.json?${query}`)
      expect(searched.status, `${JSON.stringify(name)}: ${searched.text}`).toBe(400)
      expect(searched.json.available_tables.sort()).toEqual(available)
      expect(searched.json.error).toMatch(/unknown table_name/)
      const open = await ctx().call('GET', `/svc/db/shop/search?${query}`, {as: null})
      expect(open.status, `${JSON.stringify(name)}: ${open.text}`).toBe(400)
      expect(open.json.available_tables.sort()).toEqual(available)
    }
    // A known table still answers, and a NUL elsewhere in the query is still the 422 it was.
    expect((await ctx().call('GET', `/svc/dbs/${db.json.id}/records.json?table_name=products`)).status).toBe(200)
    const q = await ctx().call('GET', `/svc/dbs/${db.json.id}/records.json?table_name=products&q=a%00b`)
    expect(q.status).toBe(422)
    expect(q.json).toEqual({q: ['must not contain a NUL character']})
    // A write naming such a table is refused as any write of an unknown table is (422 under table_name), and writes nothing.
    const wrote = await ctx().call('POST', `/svc/dbs/${db.json.id}/records.json`, {body: {record: {table_name: 'prod\u0000ucts', data: {sku: 'x'}}}})
    expect(wrote.status).toBe(422)
    expect(Object.keys(wrote.json)).toEqual(['table_name'])
    expect((await ctx().call('GET', `/svc/dbs/${db.json.id}/records.json?table_name=products`)).json).toEqual([])
  })
})
