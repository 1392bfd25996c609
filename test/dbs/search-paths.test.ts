// The fast paths of record search give the answers of a scan (docs/dbs.md "Search"): a prefix
// wildcard filter on a string index column reads the ranges of its case variants, and a `q` on
// PostgreSQL first walks the records in the query's order. Every answer is checked against the
// rule computed here from the data, on both stores and both transports.
import {expect, it} from 'vitest'
import {describeBothTransports} from '../helpers/scenarios.js'

const lower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase())
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** SQLite's LIKE of a pattern with `*`/`%` wildcards (anchored), ASCII letters either case, against a value's SQL text. */
const like = (pattern: string, text: string | null) =>
  text !== null && new RegExp(`^${pattern.split(/[*%]/).map((p) => escape(lower(p))).join('.*')}$`, 's').test(lower(text))
/** A JSON value as the SQL of both stores reads it (json_extract): strings as they are, booleans 1 / 0, objects as JSON. */
const sqlText = (v: unknown): string | null =>
  v === undefined || v === null ? null : typeof v === 'string' ? v : typeof v === 'boolean' ? (v ? '1' : '0') : JSON.stringify(v)

describeBothTransports('prefix wildcard filters on index columns answer as a scan', undefined, (ctx) => {
  const long = `ada.${'x'.repeat(300)}@long.org`
  const emails = [
    'Ada.Lovelace@x.org', 'ada.king@x.org', 'ADA.byron@x.org', 'adam@x.org', 'bob.ada@x.org', 'Zoë.ada@x.org', 'zoë.x@y.org',
    'a_b.c@x.org', 'axb.c@x.org', long, '1ada@x.org', 'ümlaut@x.org', 'Ümlaut@y.org', 'ada\u{1F600}x@z.org', 'AdA.LoVe@q.org',
    'adb@x.org', 'ad@x.org', 'ac~@x.org', 'ad\u{10FFFF}@x.org',
  ]
  // `ref` is indexed without a declared type: it holds whatever the records hold.
  const refs: unknown[] = [42, true, false, {a: 'x'}, ['t'], 'x42', 'True', '42abc', -7, 'tea', null, 'Tab', '{a}', 420]
  const ids = new Map<string, number>()
  const found = async (qs: string) => {
    const r = await ctx().call('GET', `/svc/dbs/contacts/search.json?${/limit=/.test(qs) ? qs : `limit=100&${qs}`}`)
    expect(r.status, `${qs} → ${r.text}`).toBe(200)
    return r.json.map((x: any) => x.id)
  }

  it('seeds', async () => {
    const c = ctx()
    const schema = {fields: {email: 'string'}, indexed_fields: ['email'], indexes: {ref: 'idx_str_2'}}
    expect((await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Contacts', code: 'contacts', schema}}})).status).toBe(201)
    const records = Math.max(emails.length, refs.length)
    for (let i = 0; i < records; i++) {
      const data: Record<string, unknown> = {}
      if (i < emails.length) data.email = emails[i]
      if (i < refs.length && refs[i] !== null) data.ref = refs[i]
      const r = await c.call('POST', '/svc/dbs/contacts/records.json', {body: {record: {data}}})
      expect(r.status, r.text).toBe(201)
      ids.set(String(i), r.json.id)
    }
  })

  /** Ids, newest first, of the records whose `field` matches `pattern`. */
  const expected = (field: 'email' | 'ref', pattern: string) => {
    const values = field === 'email' ? emails : refs
    const out: number[] = []
    for (let i = Math.max(emails.length, refs.length) - 1; i >= 0; i--) if (like(pattern, sqlText(values[i]))) out.push(ids.get(String(i))!)
    return out
  }

  it('email prefixes, any case, long and short, beyond the enumerated letters, non-ASCII: the rows a scan finds', async () => {
    const patterns = [
      'ada.*', 'ADA.*', 'Ada*', 'ada.l*', 'ADA.LOVE*', 'adam*', 'a_b*', 'ada.xxxxxxxxxxxxxxxxxxx*', `${long.slice(0, 280)}*`, 'ada*org',
      'ada.*@x.org', 'zo*', 'ZOË*', 'zoë*', 'Zoë*', 'ü*', 'Ü*', '1*', '1ada*', 'ada\u{1F600}*', 'lovelace*', 'ad*', 'ad\u{10FFFF}*',
      'ac~*', 'ac*', 'adb*', 'AD%', 'a*', 'A*', 'b*', 'nobody*', '*', '%', '*ada*', '*.org', 'a*a*',
    ]
    for (const p of patterns) expect(await found(`filter[email]=${encodeURIComponent(p)}`), `filter[email]=${p}`).toEqual(expected('email', p))
  })

  it('a field holding numbers, booleans, objects and strings: prefixes that only strings could match, and those that not', async () => {
    for (const p of ['4*', '42*', '1*', '0*', 't*', 'T*', 'tr*', 'true*', 'x4*', 'X*', '{*', '{"a*', '[*', '-*', '-7*', 'ta*', 'TA*']) {
      expect(await found(`filter[ref]=${encodeURIComponent(p)}`), `filter[ref]=${p}`).toEqual(expected('ref', p))
    }
  })

  it('with other filters, a sort, a page', async () => {
    const all = expected('email', 'ad*')
    expect(await found('filter[email]=AD*&limit=3&offset=2')).toEqual(all.slice(2, 5))
    expect(await found('filter[email]=ad*&sort=id')).toEqual([...all].reverse())
    expect(await found('filter[email]=ad*&filter[ref]=t*')).toEqual(all.filter((id) => expected('ref', 't*').includes(id)))
  })
})

describeBothTransports('q on a table larger than the walk: the newest hits in order, as a scan finds them', undefined, (ctx) => {
  const SIZE = 5000
  const name = (i: number) => `p${i} ${i % 7 === 0 ? 'Common' : 'other'}${i === 3 ? ' rarezz' : ''}${i % 1000 === 999 ? ' milestone' : ''}`
  const n = (i: number) => (i * 37) % 50
  let firstId = 0
  const found = async (qs: string) => {
    const r = await ctx().call('GET', `/svc/dbs/walk/search.json?${qs}`)
    expect(r.status, `${qs} → ${r.text}`).toBe(200)
    return r.json.map((x: any) => x.id)
  }
  /** Ids of the records matching `test`, in the order of `sort`, one page. */
  const expected = (test: (i: number) => boolean, {sort = '-id', limit = 20, offset = 0} = {}) => {
    const rows = Array.from({length: SIZE}, (_, i) => i).filter(test)
    const desc = sort.startsWith('-')
    const key = sort.replace('-', '')
    rows.sort((a, b) => (key === 'n' ? n(a) - n(b) || a - b : a - b) * (desc ? -1 : 1))
    return rows.slice(offset, offset + limit).map((i) => firstId + i)
  }
  const has = (fragment: string) => (i: number) => lower(name(i)).includes(lower(fragment))

  it('seeds 5000 records', async () => {
    const c = ctx()
    const schema = {fields: {name: 'string', n: 'integer'}, indexed_fields: ['name', 'n']}
    expect((await c.call('POST', '/svc/dbs.json', {body: {db: {name: 'Walk', code: 'walk', schema}}})).status).toBe(201)
    for (let i = 0; i < SIZE; i += 1000) {
      const records = Array.from({length: 1000}, (_, j) => ({data: {name: name(i + j), n: n(i + j)}}))
      const r = await c.call('POST', '/svc/dbs/walk/import.json', {body: {records}})
      expect(r.status, r.text).toBe(201)
    }
    firstId = (await found('sort=id&limit=1'))[0]
  })

  it('a common fragment: the newest 20 in order, any case, deeper pages', async () => {
    expect(await found('q=common')).toEqual(expected(has('common')))
    expect(await found('q=COMMON')).toEqual(expected(has('common')))
    expect(await found('q=ommo&limit=30&offset=40')).toEqual(expected(has('ommo'), {limit: 30, offset: 40}))
    expect(await found('q=common&limit=100&offset=150')).toEqual(expected(has('common'), {limit: 100, offset: 150}))
    expect(await found('q=common&offset=700')).toEqual(expected(has('common'), {offset: 700}))
  })

  it('sorted by an index column or oldest first', async () => {
    expect(await found('q=common&sort=n')).toEqual(expected(has('common'), {sort: 'n'}))
    expect(await found('q=common&sort=-n&limit=50')).toEqual(expected(has('common'), {sort: '-n', limit: 50}))
    expect(await found('q=common&sort=id')).toEqual(expected(has('common'), {sort: 'id'}))
  })

  it('rare and absent fragments (the walk finds too few): the full search answers', async () => {
    expect(await found('q=rarezz')).toEqual(expected(has('rarezz')))
    expect(await found('q=milestone')).toEqual(expected(has('milestone')))
    expect(await found('q=milestone&sort=id&limit=3')).toEqual(expected(has('milestone'), {sort: 'id', limit: 3}))
    expect(await found('q=absentzz')).toEqual([])
    expect(await found('q=p1*mon')).toEqual(expected((i) => /^p1.*mon$/i.test(name(i))))
  })

  it('with a filter', async () => {
    expect(await found('q=common&filter[n]=3')).toEqual(expected((i) => has('common')(i) && n(i) === 3))
    expect(await found('q=other&filter[name]=p4*')).toEqual(expected((i) => has('other')(i) && name(i).startsWith('p4')))
  })
})
