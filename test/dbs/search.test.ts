import {expect, it} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'
import {rawQuery} from '../helpers/pg.js'

const people = {
  name: 'People', code: 'people',
  schema: {fields: {name: 'string', city: 'string', age: 'integer', vip: 'boolean', born: 'date', note: 'text'}, indexed_fields: ['name', 'age', 'born']},
}
const rows = [
  {name: 'Alice Smith', city: 'Berlin', age: 30, vip: true, born: '1996-01-05', note: 'likes tea'},
  {name: 'Bob Stone', city: 'Paris', age: 42, vip: false, born: '1984-07-01', note: 'likes coffee'},
  {name: 'Carol Smithers', city: 'berlin', age: 30, vip: false, born: '1996-02-01', note: 'rock_climbing 100%'},
  {name: 'Dan', city: 'Rome', age: 7, vip: true, born: '2019-03-03', note: 'x'},
]

const INJECTIONS = [
  `name') OR 1=1 --`, `"; DROP TABLE db_records; --`, `name" OR "1"="1`, `$.name`, `a'b`, `x]`, `*`, `data`, `../../etc`,
]

describeBothTransports('private search', undefined, (ctx) => {
  const ids: number[] = []
  const search = (qs: string, as = 'admin') => ctx().call('GET', `/svc/dbs/people/search.json?${qs}`, {as})
  const names = (r: {json: any}) => r.json.map((x: any) => x.name)

  it('seeds', async () => {
    const c = ctx()
    expect((await c.call('POST', '/svc/dbs.json', {body: {db: people}})).status).toBe(201)
    for (const data of rows) ids.push((await c.call('POST', '/svc/dbs/people/records.json', {body: {record: {data}}})).json.id)
    // another account's db with the same code and matching data never shows
    await c.call('POST', '/svc/dbs.json', {as: 'mallory', body: {db: people}})
    await c.call('POST', '/svc/dbs/people/records.json', {as: 'mallory', body: {record: {data: rows[0]}}})
  })

  it('flat shape, newest first, default limit 20', async () => {
    const r = await search('')
    expect(r.status).toBe(200)
    expect(r.json).toHaveLength(4)
    expect(r.json[0]).toEqual({...rows[3], id: ids[3], created_at: expect.any(String), updated_at: expect.any(String)})
    expect(r.json.map((x: any) => x.id)).toEqual([...ids].reverse())
  })

  it('q: fragment over the indexed fields, case-insensitive; wildcards anchor', async () => {
    expect(names(await search('q=smith'))).toEqual(['Carol Smithers', 'Alice Smith'])
    expect(names(await search('q=SMI'))).toEqual(['Carol Smithers', 'Alice Smith'])
    expect(names(await search('q=ali*'))).toEqual(['Alice Smith'])
    expect(names(await search('q=*stone'))).toEqual(['Bob Stone'])
    expect(names(await search('q=c%25s'))).toEqual(['Carol Smithers'])
    expect(names(await search('q=an'))).toEqual(['Dan']) // under 3 characters: scan
    expect(names(await search('q=tea'))).toEqual([]) // note is not indexed: not searched by default
    expect(names(await search('q=tea&search_in=note'))).toEqual(['Alice Smith'])
    expect(names(await search('q=likes&search_in=note,city'))).toEqual(['Bob Stone', 'Alice Smith'])
    expect(names(await search('q=_climb&search_in=note'))).toEqual(['Carol Smithers'])
    expect(names(await search('q=*100%25&search_in=note'))).toEqual(['Carol Smithers'])
    expect(names(await search('q=100%25&search_in=note'))).toEqual([]) // % is a wildcard: anchored at the start
    expect(names(await search('q=g_c&search_in=note'))).toEqual([]) // _ is literal
  })

  it('filter: exact with type conversion, patterns case-insensitive', async () => {
    expect(names(await search('filter[age]=30'))).toEqual(['Carol Smithers', 'Alice Smith'])
    expect(names(await search('filter[vip]=true'))).toEqual(['Dan', 'Alice Smith'])
    expect(names(await search('filter[vip]=0'))).toEqual(['Carol Smithers', 'Bob Stone'])
    expect(names(await search('filter[city]=Berlin'))).toEqual(['Alice Smith'])
    expect(names(await search('filter[city]=BER*'))).toEqual(['Carol Smithers', 'Alice Smith'])
    expect(names(await search('filter[name]=Dan'))).toEqual(['Dan'])
    expect(names(await search('filter[born]=1996-01-05'))).toEqual(['Alice Smith'])
    expect(names(await search('filter[age]=30&filter[city]=berlin'))).toEqual(['Carol Smithers'])
    expect(names(await search('filter[unknown]=1'))).toEqual([])
    const bad = await search('filter[age]=old')
    expect(bad.status).toBe(422)
    expect(bad.json).toEqual({'filter[age]': ['must be an integer']})
  })

  it('sort, fields, limit, offset', async () => {
    expect(names(await search('sort=name'))).toEqual(['Alice Smith', 'Bob Stone', 'Carol Smithers', 'Dan'])
    expect(names(await search('sort=-age&limit=2'))).toEqual(['Bob Stone', 'Carol Smithers'])
    expect(names(await search('sort=city&limit=1&offset=1'))).toEqual(['Bob Stone'])
    expect(names(await search('sort=-id&limit=1'))).toEqual(['Dan'])
    expect(names(await search('sort=created_at&limit=1'))).toEqual(['Alice Smith'])
    const r = await search('fields=name,age&limit=1')
    expect(r.json).toEqual([{name: 'Dan', age: 7, id: ids[3], created_at: expect.any(String), updated_at: expect.any(String)}])
    expect((await search('limit=101')).status).toBe(422)
    expect((await search('offset=-1')).status).toBe(422)
  })

  it('injection strings in every field-name parameter: 4xx or no rows, never a 500, never another row', async () => {
    const c = ctx()
    for (const bad of INJECTIONS) {
      const e = encodeURIComponent(bad)
      for (const qs of [`filter[${e}]=1`, `sort=${e}`, `sort=-${e}`, `fields=${e}`, `search_in=${e}&q=smith`, `table_name=${e}`, `q=${e}`, `filter[name]=${e}`]) {
        const r = await search(qs)
        expect(r.status, `${qs} → ${r.text}`).toBeLessThan(500)
        if (r.status === 200) for (const row of r.json) expect(ids).toContain(row.id)
      }
      const list = await c.call('GET', `/svc/dbs/people/records.json?sort=${e}`)
      expect(list.status).toBeLessThan(500)
    }
    expect((await search(`filter[${encodeURIComponent(`name') OR 1=1 --`)}]=1`)).json).toEqual({[`filter[name') OR 1=1 --]`]: [expect.stringContaining('not a valid field name')]})
    // FTS syntax in q is a literal, not a query
    for (const q of ['"', 'AND OR NOT', 'NEAR(a b)', 'a"b"c', '*"*', "' OR ''='"]) {
      const r = await search(`q=${encodeURIComponent(q)}`)
      expect(r.status, q).toBe(200)
      expect(r.json).toEqual([])
    }
    const all = await rawQuery(c.world, 'SELECT count(*) AS n FROM db_records')
    expect(Number(all[0].n)).toBe(5)
  })

  it('multi-table: table_name required and known, 400 with available_tables', async () => {
    const c = ctx()
    await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'M', code: 'm', schema: {tables: {a: {fields: {t: 'string'}, indexed_fields: ['t']}, b: {fields: {t: 'string'}}}}}}})
    await c.call('POST', '/svc/dbs/m/records.json', {body: {record: {table_name: 'a', data: {t: 'same text'}}}})
    await c.call('POST', '/svc/dbs/m/records.json', {body: {record: {table_name: 'b', data: {t: 'same text'}}}})
    let r = await c.call('GET', '/svc/dbs/m/search.json?q=same')
    expect(r.status).toBe(400)
    expect(r.json).toEqual({error: expect.any(String), available_tables: ['a', 'b']})
    r = await c.call('GET', '/svc/dbs/m/search.json?table_name=c')
    expect(r.status).toBe(400)
    expect(r.json.available_tables).toEqual(['a', 'b'])
    r = await c.call('GET', '/svc/dbs/m/search.json?table_name=a&q=same')
    expect(r.json).toHaveLength(1)
    r = await c.call('GET', '/svc/dbs/m/search.json?table_name=b&filter[t]=same%20text')
    expect(r.json).toHaveLength(1)
    expect((await c.call('GET', '/svc/dbs/people/search.json?table_name=a')).status).toBe(400)
  })

  it('a foreign or unknown db: 404', async () => {
    expect((await search('q=alice', 'mallory')).json).toHaveLength(1) // her own "people"
    expect((await ctx().call('GET', '/svc/dbs/999/search.json')).status).toBe(404)
  })
})

/**
 * `q` with fewer than 3 literal characters in a row cannot use the trigram index and falls back to
 * a scan; with 3+ the trigram index narrows and LIKE decides. Either way the answer must be exactly
 * the records whose searched fields match: checked against a plain re-implementation of the rule
 * (fragment: contains; with `*`/`%`: the whole value matches, anchored; ASCII case-insensitive; `_` literal).
 */
describeBothTransports('q: short patterns scan, long ones use the trigram index, same answers', undefined, (ctx) => {
  const words = [
    {name: 'Abby', city: 'Oslo', note: 'ab'}, {name: 'Cab', city: 'Bari', note: 'x'}, {name: 'ab', city: 'Rome'},
    {name: 'a_b', city: 'Lima'}, {name: 'axb', city: 'Kyiv'}, {name: 'Bob', city: 'Abuja'}, {name: 'a', city: 'b'},
    {name: 'żaba', city: 'łódź'}, {name: 'Zed', city: 'Quito', note: 'ab note'}, {name: '100%', city: 'Perth'},
    {name: 'xyzab', city: 'Dublin'}, {name: 'ABC', city: 'Nice'}, {name: 'Babbage', city: 'London'},
  ]
  const loose = [{t: 'ab'}, {t: 'zz', k: 12}, {t: 'q', nested: {x: 'ab'}}, {t: 'B2', k: 3.25}]
  const ids = new Map<object, number>()
  const lower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase())
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const matches = (q: string, value: unknown) => {
    if (typeof value !== 'string' && typeof value !== 'number') return false
    const v = lower(String(value))
    if (!/[*%]/.test(q)) return v.includes(lower(q))
    return new RegExp(`^${q.split(/[*%]/).map((p) => escape(lower(p))).join('.*')}$`, 's').test(v)
  }
  /** Ids (newest first) of the rows whose `fields` (or every top-level value) match `q`. */
  const expected = (rows: Record<string, unknown>[], q: string, fields?: string[]) =>
    rows.filter((r) => (fields ?? Object.keys(r)).some((f) => matches(q, r[f]))).map((r) => ids.get(r)!).reverse()
  const found = async (code: string, q: string, extra = '') => {
    const r = await ctx().call('GET', `/svc/dbs/${code}/search.json?limit=100&q=${encodeURIComponent(q)}${extra}`)
    expect(r.status, `${q} → ${r.text}`).toBe(200)
    return r.json.map((x: any) => x.id)
  }

  it('seeds', async () => {
    const c = ctx()
    const schema = {fields: {name: 'string', city: 'string', note: 'text'}, indexed_fields: ['name', 'city']}
    expect((await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Words', code: 'words', schema}}})).status).toBe(201)
    for (const data of words) ids.set(data, (await c.call('POST', '/svc/dbs/words/records.json', {body: {record: {data}}})).json.id)
    expect((await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Loose', code: 'loose'}}})).status).toBe(201)
    for (const data of loose) ids.set(data, (await c.call('POST', '/svc/dbs/loose/records.json', {body: {record: {data}}})).json.id)
  })

  it('short patterns (fewer than 3 literal characters) return exactly the matching records', async () => {
    const id = (name: string) => ids.get(words.find((w) => w.name === name)!)
    // Default: the indexed fields (name, city); newest first.
    expect(await found('words', 'ab')).toEqual(['Babbage', 'ABC', 'xyzab', 'żaba', 'Bob', 'ab', 'Cab', 'Abby'].map(id))
    expect(await found('words', 'a*')).toEqual(['ABC', 'a', 'Bob', 'axb', 'a_b', 'ab', 'Abby'].map(id))
    expect(await found('words', '%b')).toEqual(['xyzab', 'a', 'Bob', 'axb', 'a_b', 'ab', 'Cab'].map(id))
    expect(await found('words', 'a%b')).toEqual(['axb', 'a_b', 'ab'].map(id))
    expect(await found('words', 'a_')).toEqual(['a_b'].map(id)) // _ is a literal, not a one-character wildcard
    expect(await found('words', 'łó')).toEqual(['żaba'].map(id))
    expect(await found('words', 'ab', '&search_in=note')).toEqual(['Zed', 'Abby'].map(id))
    // No schema: every top-level scalar value (numbers too), never a nested one.
    expect(await found('loose', 'ab')).toEqual([ids.get(loose[0]!)])
    expect(await found('loose', '2')).toEqual([ids.get(loose[3]!), ids.get(loose[1]!)])
    expect(await found('loose', '*5')).toEqual([ids.get(loose[3]!)])
  })

  it('3+ character patterns (trigram index) answer as before', async () => {
    const id = (name: string) => ids.get(words.find((w) => w.name === name)!)
    expect(await found('words', 'abb')).toEqual(['Babbage', 'Abby'].map(id))
    expect(await found('words', 'ABB')).toEqual(['Babbage', 'Abby'].map(id))
    expect(await found('words', 'ab*uja')).toEqual(['Bob'].map(id)) // one short and one long literal, anchored
    expect(await found('words', 'a_b')).toEqual(['a_b'].map(id))
    expect(await found('words', 'łód')).toEqual(['żaba'].map(id))
    expect(await found('words', '100%')).toEqual(['100%'].map(id))
    expect(await found('words', 'xyz*')).toEqual(['xyzab'].map(id))
    expect(await found('loose', 'zz')).toEqual([ids.get(loose[1]!)])
  })

  it('every pattern, short or long, agrees with the rule', async () => {
    const patterns = [
      'a', 'b', 'B', 'o', 'ab', 'AB', 'bb', 'a*', '*a', '%b', 'b%', 'a%b', '*a*', '%', '*', 'a_', '_b', '0%', 'łó', 'ź',
      'abb', 'abc', 'bab', 'oslo', 'a*b*e', 'ab*uja', '*uja', 'lon*', 'a_b', 'żab', 'łódź', 'xyz*', '*zab', '100', 'zzz',
    ]
    for (const q of patterns) {
      expect(await found('words', q), `words q=${q}`).toEqual(expected(words, q, ['name', 'city']))
      expect(await found('words', q, '&search_in=note,name'), `words q=${q} in note,name`).toEqual(expected(words, q, ['note', 'name']))
      expect(await found('loose', q), `loose q=${q}`).toEqual(expected(loose, q))
    }
  })
})

/**
 * Past the first indexing batch (src/store/sqlite/fts-indexer.ts: every 256th record id indexes the
 * queue) some records are in the trigram index and some only queued; then records are updated and
 * deleted on both sides of that line. Every `q` must still return exactly the matching records.
 */
describeBothTransports('q over indexed and queued records, after updates and deletes', undefined, (ctx) => {
  const live = new Map<number, string>() // id → name, as the server should hold it
  const found = async (q: string) => {
    const r = await ctx().call('GET', `/svc/dbs/many/search.json?limit=100&q=${encodeURIComponent(q)}`)
    expect(r.status, `${q} → ${r.text}`).toBe(200)
    return r.json.map((x: any) => x.id)
  }
  const expected = (q: string) => [...live].filter(([, name]) => name.includes(q)).map(([id]) => id).sort((a, b) => b - a).slice(0, 100)

  it('seeds 300 records (the first 256 ids cross an indexing batch)', async () => {
    const c = ctx()
    const schema = {fields: {name: 'string'}, indexed_fields: ['name']}
    expect((await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Many', code: 'many', schema}}})).status).toBe(201)
    for (let i = 0; i < 300; i += 25) {
      const created = await Promise.all(Array.from({length: 25}, (_, j) =>
        c.call('POST', '/svc/dbs/many/records.json', {body: {record: {data: {name: `rec${String(i + j).padStart(3, '0')}x`}}}})))
      for (const r of created) {
        expect(r.status).toBe(201)
        live.set(r.json.id, r.json.data.name)
      }
    }
  })

  it('updates and deletes records on both sides of the batch, then every search agrees with the data', async () => {
    const c = ctx()
    const ids = [...live.keys()].sort((a, b) => a - b)
    for (const id of [ids[3]!, ids[200]!, ids[290]!]) {
      const r = await c.call('PATCH', `/svc/dbs/many/records/${id}.json`, {body: {record: {data: {name: `renamed${id}zz`}}}})
      expect(r.status, r.text).toBe(200)
      live.set(id, `renamed${id}zz`)
    }
    for (const id of [ids[10]!, ids[295]!]) {
      expect((await c.call('DELETE', `/svc/dbs/many/records/${id}.json`)).status).toBeLessThan(300)
      live.delete(id)
    }
    for (const q of ['rec003x', 'rec010', 'rec200', 'rec29', 'renamed', 'med', 'zz', 'rec1', 'ec2', 'c05', 'x', 'rec295x', 'nothing']) {
      expect(await found(q), `q=${q}`).toEqual(expected(q))
    }
  })
})
