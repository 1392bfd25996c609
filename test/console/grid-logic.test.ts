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
