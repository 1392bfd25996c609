// The records grid's pure logic (console/src/db/*.js): the one-line search syntax, completion,
// sorting clicks, and the export formats.
import {describe, expect, it} from 'vitest'
// @ts-expect-error plain JS module of the console
import {completions, formatSearch, isSearch, nextSort, parseSearch, withSearch} from '../../console/src/db/query.js'
// @ts-expect-error plain JS module of the console
import {csvCell, nest, toCsv, toNdjson} from '../../console/src/db/export.js'

describe('search box syntax', () => {
  it('reads words as q, field:value as filters and in: as search_in', () => {
    expect(parseSearch('lov*  london city:London name:"Ada L*" in:name,city')).toEqual({
      q: 'lov* london', search_in: 'name,city', filters: [['city', 'London'], ['name', 'Ada L*']],
    })
    // A colon after something that is no field name stays in q; quotes keep a literal colon.
    expect(parseSearch('10:30 "a:b"')).toEqual({q: '10:30 a:b', search_in: '', filters: []})
    expect(parseSearch('')).toEqual({q: '', search_in: '', filters: []})
  })

  it('goes from the box to URL parameters and back', () => {
    const params = withSearch(new URLSearchParams('table_name=t&sort=-id&offset=40&q=old&filter[x]=1'), 'name:"Ada L*" in:name ada*')
    expect([...params]).toEqual([['table_name', 't'], ['sort', '-id'], ['q', 'ada*'], ['search_in', 'name'], ['filter[name]', 'Ada L*']])
    expect(isSearch(params)).toBe(true)
    expect(isSearch(new URLSearchParams('sort=id'))).toBe(false)
    expect(formatSearch(params)).toBe('name:"Ada L*" in:name ada*')
    expect(parseSearch(formatSearch(params))).toEqual(parseSearch('name:"Ada L*" in:name ada*'))
  })

  it('completes field names for the word being typed, and after in:', () => {
    expect(completions('lov* au', ['author', 'title'])).toEqual([{label: 'author:', text: 'lov* author:'}])
    expect(completions('i', ['id_card', 'title']).map((c: {text: string}) => c.text)).toEqual(['id_card:', 'in:'])
    expect(completions('in:author,t', ['author', 'title', 'pages'])).toEqual([{label: 'title', text: 'in:author,title'}])
    expect(completions('author:ad', ['author'])).toEqual([])
  })

  it('cycles a column through ascending, descending and the default order', () => {
    expect(nextSort('', 'pages')).toBe('pages')
    expect(nextSort('pages', 'pages')).toBe('-pages')
    expect(nextSort('-pages', 'pages')).toBe('')
    expect(nextSort('-title', 'pages')).toBe('pages')
  })
})

describe('export formats', () => {
  const record = {id: 7, table_name: null, data: {title: 'Dune, "the" book', tags: ['a'], n: -3, f: '=1+2'}, created_at: 'c', updated_at: 'u'}

  it('writes NDJSON lines in the shape of svc db export', () => {
    expect(toNdjson([record])).toBe(`${JSON.stringify(record)}\n`)
    expect(toNdjson([])).toBe('')
    expect(nest({title: 'x', id: 1, created_at: 'c', updated_at: 'u'}, 'books')).toEqual({id: 1, table_name: 'books', data: {title: 'x'}, created_at: 'c', updated_at: 'u'})
  })

  it('writes CSV with quoting, JSON for objects and no spreadsheet formulas', () => {
    expect(toCsv([record], ['title'])).toBe('id,title,tags,n,f,created_at,updated_at\r\n7,"Dune, ""the"" book","[""a""]",-3,\'=1+2,c,u\r\n')
    expect(csvCell(null)).toBe('')
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"')
    expect(toCsv([record], [], true).split('\r\n')[0]).toBe('id,table_name,title,tags,n,f,created_at,updated_at')
  })
})

// @ts-expect-error plain JS module of the console
import {formData, formFields, fromInput, toInput} from '../../console/src/db/form.js'

describe('record editor inputs', () => {
  it('generates inputs from declared types, then from the values of undeclared fields', () => {
    const fields = formFields([{name: 'title', type: 'string', required: true}, {name: 'at', type: 'datetime', required: false}], {title: 'x', done: true, n: 2, meta: {a: 1}, s: 'y'})
    expect(fields.map((f: {name: string; kind: string}) => `${f.name}:${f.kind}`)).toEqual(['title:string', 'at:datetime', 'done:boolean', 'n:number', 'meta:json', 's:string'])
  })

  it('turns values into input text and back; bad JSON is an error, empty inputs are left out or cleared', () => {
    expect(toInput('datetime', '2026-01-02T03:04:05.000Z')).toBe('2026-01-02T03:04:05')
    expect(toInput('json', [1])).toBe('[\n  1\n]')
    expect(toInput('boolean', false)).toBe('false')
    expect(fromInput('json', '{"a":')).toHaveProperty('error')
    expect(fromInput('boolean', 'true')).toEqual({value: true})
    const fields = [{name: 'a', kind: 'string'}, {name: 'b', kind: 'integer'}, {name: 'c', kind: 'json'}]
    expect(formData(fields, {a: '', b: '12', c: '[1]'}, undefined)).toEqual({data: {b: '12', c: [1]}, errors: {}})
    expect(formData(fields, {a: '', b: '', c: ''}, {a: 'old', b: null})).toEqual({data: {a: null}, errors: {}})
    expect(formData(fields, {c: 'nope'}, undefined).errors).toHaveProperty('c')
  })
})

// @ts-expect-error plain JS module of the console
import {diffLine, queueChange, saveQueue} from '../../console/src/db/changes.js'

describe('inline edit queue', () => {
  const edit = (id: number, field: string, before: unknown, text: string, kind = 'string') => ({id, field, kind, before, beforeText: before === null ? '' : String(before), text})

  it('keeps one change per cell, and drops it when the text is back to the stored value', () => {
    let queue = queueChange([], edit(1, 'title', 'Dune', 'Dune II'))
    queue = queueChange(queue, edit(1, 'title', 'Dune', 'Dune III'))
    queue = queueChange(queue, edit(2, 'pages', 10, '11', 'integer'))
    expect(queue.map((c: {key: string; text: string}) => `${c.key}=${c.text}`)).toEqual(['1:title=Dune III', '2:pages=11'])
    expect(queueChange(queue, edit(2, 'pages', 10, '10', 'integer')).map((c: {key: string}) => c.key)).toEqual(['1:title'])
    expect(diffLine(queue[0])).toBe('#1 title: "Dune" → "Dune III"')
    expect(diffLine(queueChange([], edit(3, 'note', null, 'x'))[0])).toBe('#3 note: ∅ → "x"')
  })

  it('saves one PATCH per record; a field the API refuses stays queued with its message while the others save', async () => {
    const sent: [number, Record<string, unknown>][] = []
    const patch = async (id: number, data: Record<string, unknown>) => {
      sent.push([id, data])
      if ('pages' in data) throw Object.assign(new Error('invalid'), {status: 422, details: {pages: ['must be an integer']}})
    }
    let queue = queueChange([], edit(1, 'title', 'A', 'B'))
    queue = queueChange(queue, edit(2, 'pages', 10, '1.5', 'integer'))
    queue = queueChange(queue, edit(2, 'author', 'X', 'Y'))
    queue = queueChange(queue, edit(3, 'meta', null, '{bad', 'json'))
    const left = await saveQueue(queue, patch)
    expect(sent).toEqual([[1, {title: 'B'}], [2, {pages: '1.5', author: 'Y'}], [2, {author: 'Y'}]])
    expect(left.map((c: {key: string; error: string}) => `${c.key}: ${c.error}`)).toEqual([
      '2:pages: pages must be an integer', expect.stringMatching(/^3:meta: is not valid JSON/),
    ])
  })
})

describe('inline edit queue and a stale record', () => {
  it('sends the row tag as If-Match; a 412 keeps the change with their value and the current tag for a knowing overwrite', async () => {
    const tags: unknown[] = []
    let stale = true
    const patch = async (_id: number, _data: unknown, etag: string) => {
      tags.push(etag)
      if (stale) {
        stale = false
        throw Object.assign(new Error('changed'), {status: 412, details: {etag: '"r1-new"', current: {id: 1, data: {title: 'Theirs'}}}})
      }
    }
    const queue = queueChange([], {id: 1, field: 'title', kind: 'string', before: 'Was', beforeText: 'Was', text: 'Mine', etag: '"r1-old"'})
    const left = await saveQueue(queue, patch)
    expect(left).toHaveLength(1)
    expect(left[0]).toMatchObject({etag: '"r1-new"', before: 'Was', theirs: {value: 'Theirs'}, error: expect.stringMatching(/someone else/)})
    expect(diffLine(left[0])).toBe('#1 title: "Was" → "Mine" (now "Theirs", changed by someone else)')
    expect(await saveQueue(left, patch)).toEqual([])
    expect(tags).toEqual(['"r1-old"', '"r1-new"'])
  })
  it('a refused change whose record\'s other fields saved takes the saved version\'s tag (our own save is not someone else\'s)', async () => {
    const patch = async (id: number, data: Record<string, unknown>) => {
      if ('pages' in data) throw Object.assign(new Error('invalid'), {status: 422, details: {pages: ['must be an integer']}})
      return {id, data, updated_at: 'later'}
    }
    let queue = queueChange([], {id: 2, field: 'pages', kind: 'integer', before: 10, beforeText: '10', text: '1.5', etag: '"r2-old"'})
    queue = queueChange(queue, {id: 2, field: 'author', kind: 'string', before: 'X', beforeText: 'X', text: 'Y', etag: '"r2-old"'})
    const left = await saveQueue(queue, patch, (r: {id: number; updated_at: string}) => `"r${r.id}-${r.updated_at}"`)
    expect(left.map((c: {key: string; etag: string}) => [c.key, c.etag])).toEqual([['2:pages', '"r2-later"']])
  })
})

// @ts-expect-error plain JS module of the console
import {formOfSchema, schemaOfForm} from '../../console/src/db/schema-form.js'

describe('schema editor form', () => {
  it('reads a schema into rows and writes the same schema back (single, multi, free-form, hand-picked index columns)', () => {
    const single = {fields: {title: {type: 'string', required: true}, pages: 'integer'}, indexed_fields: ['title']}
    expect(formOfSchema(single).tables[0].fields).toEqual([
      {name: 'title', type: 'string', required: true, indexed: true}, {name: 'pages', type: 'integer', required: false, indexed: false},
    ])
    expect(schemaOfForm(formOfSchema(single))).toEqual(single)
    const multi = {tables: {orders: {fields: {total: 'number'}, indexes: {total: 'idx_num_1'}}, customers: {fields: {email: 'string'}}}}
    expect(schemaOfForm(formOfSchema(multi))).toEqual(multi)
    expect(schemaOfForm(formOfSchema(null))).toBeNull()
    const form = formOfSchema(single)
    form.tables[0].fields.push({name: ' isbn ', type: 'string', required: false, indexed: true}, {name: '', type: 'text', required: false, indexed: false})
    form.tables[0].fields[1].required = true
    expect(schemaOfForm(form)).toEqual({fields: {title: {type: 'string', required: true}, pages: {type: 'integer', required: true}, isbn: 'string'}, indexed_fields: ['title', 'isbn']})
  })
})

// @ts-expect-error plain JS module of the console
import {ownOnly, publicSummary, setOwnOnly, toggleMethod} from '../../console/src/db/public-methods.js'

describe('public methods editor', () => {
  it('switches methods and "own records only", and says in words what anyone can do', () => {
    expect(publicSummary({}, 'guests')).toEqual(['Nobody outside your account can reach this database: no public method is enabled.'])
    let config = toggleMethod(toggleMethod(toggleMethod({}, 'list', true), 'get', true), 'create', true)
    expect(config).toEqual({list: true, get: true, create: true})
    config = setOwnOnly(config, true)
    expect(config).toEqual({list: {scope_by: 'visitor'}, get: {scope_by: 'visitor'}, create: {auto_fields: {visitor: '{cookie_key}'}}})
    expect(ownOnly(config)).toBe(true)
    expect(publicSummary({...config, create: {...config.create, allowed_fields: ['name', 'message'], required_fields: ['message']}}, 'guests')).toEqual([
      'Anyone on the internet can list, read and create records in this database, without signing in.',
      "Each visitor lists and reads only their own records (the field visitor holds the visitor's browser key (a cookie)).",
      'Create may set only name and message.',
      'Create requires message.',
      "Create fills visitor with the visitor's browser key (a cookie), whatever the visitor sends.",
      'Addresses: /svc/db/guests/list, /svc/db/guests/get, /svc/db/guests/create.',
    ])
    expect(setOwnOnly(config, false)).toEqual({list: true, get: true, create: true})
    expect(toggleMethod(config, 'get', false)).toEqual({list: {scope_by: 'visitor'}, create: {auto_fields: {visitor: '{cookie_key}'}}})
  })
})

// @ts-expect-error plain JS module of the console
import {arrangeColumns, moveColumn, orderedColumns, showColumn} from '../../console/src/db/columns.js'

describe('grid columns per user', () => {
  const columns = ['id', 'title', 'author', 'pages', 'created_at', 'updated_at']
  it('applies the saved order and hidden columns; names that no longer exist are ignored; id always shows', () => {
    expect(arrangeColumns(columns, undefined)).toEqual(columns)
    expect(arrangeColumns(columns, {order: ['pages', 'gone', 'title'], hidden: ['author', 'id', 'created_at']})).toEqual(['pages', 'title', 'id', 'updated_at'])
    let pref = showColumn({}, 'author', false)
    pref = moveColumn(columns, pref, 'pages', -1)
    expect(orderedColumns(columns, pref)).toEqual(['id', 'title', 'pages', 'author', 'created_at', 'updated_at'])
    expect(arrangeColumns(columns, pref)).toEqual(['id', 'title', 'pages', 'created_at', 'updated_at'])
    expect(moveColumn(columns, pref, 'id', -1)).toBe(pref)
    expect(showColumn(pref, 'id', false).hidden).toEqual(['author'])
    expect(arrangeColumns(columns, showColumn(pref, 'author', true))).toContain('author')
  })
})
