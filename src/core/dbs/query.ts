/**
 * Turns the query parameters of the private records list, the private search and public search
 * into a validated query spec: a plan that names no SQL (each driver writes its own:
 * src/store/sqlite/dbs-search.ts, src/store/pg/dbs-search.ts).
 * Every field name is checked against FIELD_NAME and passed to the store as a name (each driver binds
 * it in its own JSON syntax) or a whitelisted index column; nothing from a request is spliced into SQL.
 */
import {badRequest, FieldErrorBag} from '../errors.js'
import {dict, own} from '../safe-keys.js'
import {prefixRanges, type TextRange} from './prefix-ranges.js'
import {convert} from './records.js'
import {type IndexColumn, isFieldName, type SchemaPlan, tableNames, tablePlan, type TablePlan} from './schema.js'

export const DEFAULT_LIMIT = 20
export const MAX_LIMIT = 100

/** A field reference: the field's name (checked against FIELD_NAME), and the index column when the field is indexed. */
export interface FieldRef {
  name: string
  column?: IndexColumn
}

/**
 * A case-insensitive text match (ASCII letters fold, as SQLite's LIKE does): the `parts` in this
 * order with any text between them. `anchored`: the text starts with the first part and ends with
 * the last (a pattern given with `*` or `%`); otherwise the one part may be anywhere (a fragment).
 */
export interface TextMatch {
  parts: string[]
  anchored: boolean
}

export type Filter = {
  field: FieldRef
  /** Exact: any of `values`. */
  op: 'eq'
  values: (string | number)[]
  /** For an exact match on an index column: the value the column holds (narrowing), checked again on data when needed. */
  columnValue?: string | number
  /** The column holds the full value: no need to check data. */
  columnExact?: boolean
} | {
  field: FieldRef
  op: 'match'
  match: TextMatch
  /** For a pattern with a literal prefix on a string index column: the column ranges that hold every match (the pattern still decides). */
  columnRanges?: TextRange[]
}

export interface TextQuery {
  match: TextMatch
  /** The match's literal runs of 3+ characters: a trigram index can narrow the candidates with them (empty: it cannot). */
  literals: string[]
  /** Fields searched; 'all' = every top-level scalar value of data. */
  fields: FieldRef[] | 'all'
}

/** A sort on an index column names its field too (a db being reindexed sorts on the field's data: `readingData`). */
export type SortKey = {kind: 'column'; column: 'id' | 'created_at' | 'updated_at' | IndexColumn; field?: string} | {kind: 'json'; field: string}

export interface QuerySpec {
  /** undefined: every table (records list without table_name). */
  tableName?: string | null
  q?: TextQuery
  filters: Filter[]
  sort: SortKey
  desc: boolean
  /** Data fields to return (undefined: all). */
  fields?: string[]
  limit: number
  offset: number
  /** Public methods: only records whose `field` holds the string `value`. */
  scope?: {field: string; value: string}
  /** Export cursor: records with id > afterId, ascending. */
  afterId?: number
  /** Let the store narrow `q` with its text index (default true; false only for benchmarks and tests: every record is read). */
  useTextIndex?: boolean
}

export function fieldRef(name: string, table: TablePlan | undefined): FieldRef {
  return {name, column: table ? (own(table.indexes, name) as IndexColumn | undefined) : undefined}
}

function fieldName(raw: string, param: string, bag: FieldErrorBag): string | undefined {
  const name = raw.trim()
  if (isFieldName(name)) return name
  bag.add(param, `"${raw.slice(0, 80)}" is not a valid field name`)
  return undefined
}

function intParam(raw: string | undefined, param: string, min: number, max: number, fallback: number, bag: FieldErrorBag): number {
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw.trim())) {
    bag.add(param, `must be an integer between ${min} and ${max}`)
    return fallback
  }
  const n = Number(raw.trim())
  if (n < min || n > max) {
    bag.add(param, `must be an integer between ${min} and ${max}`)
    return fallback
  }
  return n
}

/** `q` or a filter value: `*` and `%` are wildcards (an anchored pattern); without them a fragment. */
export function textMatch(q: string): TextMatch {
  return /[*%]/.test(q) ? {parts: q.split(/[*%]/), anchored: true} : {parts: [q], anchored: false}
}

/** The literal runs of a match a trigram index can narrow with (3 characters or more). */
const trigramLiterals = (match: TextMatch) => match.parts.filter((p) => [...p].length >= 3)

/** Resolves `table_name` of a search: 400 {error, available_tables} on a multi-table db without a known one. */
export function searchTable(plan: SchemaPlan, raw: string | undefined): {tableName: string | null; table?: TablePlan} {
  const given = raw === undefined || raw === '' ? null : raw
  if (plan.multi) {
    const available = tableNames(plan)
    if (given === null) throw badRequest('table_name is required: this database has tables', {available_tables: available})
    const table = tablePlan(plan, given)
    if (!table) throw badRequest(`unknown table_name "${given.slice(0, 80)}"`, {available_tables: available})
    return {tableName: given, table}
  }
  if (given !== null) throw badRequest('this database has no tables; leave table_name out', {available_tables: []})
  return {tableName: null, table: tablePlan(plan, null)}
}

function sortKey(raw: string | undefined, table: TablePlan | undefined, bag: FieldErrorBag): {sort: SortKey; desc: boolean} {
  if (raw === undefined || raw.trim() === '') return {sort: {kind: 'column', column: 'id'}, desc: true}
  const desc = raw.trim().startsWith('-')
  const name = raw.trim().replace(/^[-+]/, '')
  if (name === 'id' || name === 'created_at' || name === 'updated_at') return {sort: {kind: 'column', column: name}, desc}
  const field = fieldName(name, 'sort', bag)
  if (!field) return {sort: {kind: 'column', column: 'id'}, desc: true}
  const column = table ? (own(table.indexes, field) as IndexColumn | undefined) : undefined
  return {sort: column ? {kind: 'column', column, field} : {kind: 'json', field}, desc}
}

function csv(raw: string | undefined, param: string, bag: FieldErrorBag): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined
  const out: string[] = []
  for (const part of raw.split(',')) {
    if (part.trim() === '') continue
    const name = fieldName(part, param, bag)
    if (name) out.push(name)
  }
  return out
}

/** Exact or pattern filter on one field, converted by the field's schema type. */
function filterOf(name: string, raw: string, table: TablePlan | undefined, bag: FieldErrorBag): Filter | undefined {
  const field = fieldRef(name, table)
  const param = `filter[${name}]`
  if (/[*%]/.test(raw)) {
    const match = textMatch(raw)
    const f: Filter = {field, op: 'match', match}
    const ranges = field.column?.startsWith('idx_str') ? prefixRanges(match.parts[0]!) : null
    if (ranges) f.columnRanges = ranges
    return f
  }
  const def = table ? (own(table.fields, name) as TablePlan['fields'][string] | undefined) : undefined
  if (def) {
    const c = convert(def.type, raw)
    if (!c.ok) {
      bag.add(param, c.message)
      return undefined
    }
    const value = typeof c.value === 'boolean' ? (c.value ? 1 : 0) : (c.value as string | number)
    const f: Filter = {field, op: 'eq', values: [value]}
    if (field.column) {
      f.columnValue = typeof value === 'string' ? value.slice(0, 255) : value
      f.columnExact = typeof value !== 'string' || [...value].length <= 255 && value.length <= 255
    }
    return f
  }
  // A field outside the schema: match the text, or the number / boolean it spells.
  const values: (string | number)[] = [raw]
  if (/^-?\d+(\.\d+)?$/.test(raw.trim())) values.push(Number(raw.trim()))
  if (raw === 'true') values.push(1)
  if (raw === 'false') values.push(0)
  const f: Filter = {field, op: 'eq', values}
  if (field.column && field.column.startsWith('idx_str')) {
    f.columnValue = raw.slice(0, 255)
    f.columnExact = raw.length <= 255
  }
  return f
}

export interface QueryInput {
  q?: string
  search_in?: string
  sort?: string
  fields?: string
  limit?: string
  offset?: string
  after_id?: string
  /** `filter[<field>]` values by field name (raw, unvalidated). */
  filters?: Record<string, string>
}

/**
 * The fields `q` looks in without `search_in`: the table's indexed fields, else the fields its
 * schema declares, else all of each record's text (a free-form database).
 */
export function defaultSearchFields(table: TablePlan | undefined, declared: boolean): {fields: string[] | 'all'; why: 'indexed' | 'declared' | 'all'} {
  if (table && Object.keys(table.indexes).length) return {fields: Object.keys(table.indexes), why: 'indexed'}
  if (declared && table && Object.keys(table.fields).length) return {fields: Object.keys(table.fields), why: 'declared'}
  return {fields: 'all', why: 'all'}
}

/** Builds the spec; throws 422 (field map keyed by parameter) for bad names or values. */
export function buildQuery(input: QueryInput, table: TablePlan | undefined, declared: boolean): Omit<QuerySpec, 'tableName'> {
  const bag = new FieldErrorBag()
  const limit = intParam(input.limit, 'limit', 1, MAX_LIMIT, DEFAULT_LIMIT, bag)
  const offset = intParam(input.offset, 'offset', 0, Number.MAX_SAFE_INTEGER, 0, bag)
  const {sort, desc} = sortKey(input.sort, table, bag)
  const fields = csv(input.fields, 'fields', bag)
  const filters: Filter[] = []
  for (const [rawName, value] of Object.entries(input.filters ?? {})) {
    const name = fieldName(rawName, `filter[${rawName.slice(0, 80)}]`, bag)
    if (!name) continue
    const f = filterOf(name, value, table, bag)
    if (f) filters.push(f)
  }
  let q: TextQuery | undefined
  if (input.q !== undefined && input.q !== '') {
    if (input.q.length > 500) bag.add('q', 'is too long (max 500 characters)')
    if (input.q.includes('\0')) bag.add('q', 'must not contain a NUL character')
    const searchIn = csv(input.search_in, 'search_in', bag)
    const names = searchIn && searchIn.length ? searchIn : defaultSearchFields(table, declared).fields
    const match = textMatch(input.q)
    q = {match, literals: trigramLiterals(match), fields: names === 'all' ? 'all' : names.map((n) => fieldRef(n, table))}
  }
  let afterId: number | undefined
  if (input.after_id !== undefined && input.after_id !== '') afterId = intParam(input.after_id, 'after_id', 0, Number.MAX_SAFE_INTEGER, 0, bag)
  bag.throwIfAny()
  return {q, filters, sort: afterId !== undefined ? {kind: 'column', column: 'id'} : sort, desc: afterId !== undefined ? false : desc, fields, limit, offset, afterId}
}

/**
 * The same query on the records' data alone, no index column: what a db answers while a schema
 * change rewrites its index columns in slices (some records hold the old plan's values, some the
 * new one's). Filters and `q` check the data, a sort on an indexed field sorts on its data.
 */
export function readingData(spec: QuerySpec): QuerySpec {
  const bare = (f: FieldRef): FieldRef => ({name: f.name})
  return {
    ...spec,
    filters: spec.filters.map((f): Filter => f.op === 'match'
      ? {field: bare(f.field), op: 'match', match: f.match}
      : {field: bare(f.field), op: 'eq', values: f.values}),
    q: spec.q && {...spec.q, fields: spec.q.fields === 'all' ? 'all' : spec.q.fields.map(bare)},
    sort: spec.sort.kind === 'column' && spec.sort.field !== undefined ? {kind: 'json', field: spec.sort.field} : spec.sort,
  }
}

/** Reads `filter[<field>]=value` pairs out of a query-string map. */
export function filtersFromQuery(query: Record<string, string>): Record<string, string> {
  const out = dict<string>()
  for (const [key, value] of Object.entries(query)) {
    const m = /^filter\[(.*)\]$/s.exec(key)
    if (m) out[m[1]!] = value
  }
  return out
}

