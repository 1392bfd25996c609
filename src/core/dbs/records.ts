/** Records: type conversion, validation and index values. Pure rules, no I/O. */
import {FieldErrorBag} from '../errors.js'
import {own} from '../safe-keys.js'
import {
  INDEX_COLUMNS, type FieldType, type IndexColumn, type SchemaPlan, STR_INDEX_MAX, tableNames, tablePlan, type TablePlan,
} from './schema.js'

export type Data = Record<string, unknown>
export type IndexValues = Record<IndexColumn, string | number | null>

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATETIME_RE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/
const TIME_RE = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?$/

function validDate(y: number, m: number, d: number): boolean {
  const dt = new Date(Date.UTC(y, m - 1, d))
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d
}

export type Converted = {ok: true; value: unknown} | {ok: false; message: string}

/** Converts one value to a field type ("42" → 42, "true" → true, dates → ISO); null stays null. */
export function convert(type: FieldType, value: unknown): Converted {
  if (value === null || value === undefined) return {ok: true, value: null}
  switch (type) {
    case 'string':
    case 'text':
      if (typeof value === 'string') return {ok: true, value}
      if (typeof value === 'number' || typeof value === 'boolean') return {ok: true, value: String(value)}
      return {ok: false, message: 'must be a string'}
    case 'integer': {
      if (typeof value === 'number' && Number.isSafeInteger(value)) return {ok: true, value}
      if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) {
        const n = Number(value.trim())
        if (Number.isSafeInteger(n)) return {ok: true, value: n}
      }
      return {ok: false, message: 'must be an integer'}
    }
    case 'number': {
      if (typeof value === 'number' && Number.isFinite(value)) return {ok: true, value}
      if (typeof value === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)) {
        const n = Number(value.trim())
        if (Number.isFinite(n)) return {ok: true, value: n}
      }
      return {ok: false, message: 'must be a number'}
    }
    case 'boolean':
      if (typeof value === 'boolean') return {ok: true, value}
      if (value === 1 || value === 0) return {ok: true, value: value === 1}
      if (typeof value === 'string') {
        const v = value.trim().toLowerCase()
        if (v === 'true' || v === '1') return {ok: true, value: true}
        if (v === 'false' || v === '0') return {ok: true, value: false}
      }
      return {ok: false, message: 'must be true or false'}
    case 'datetime': {
      if (typeof value === 'string' && DATETIME_RE.test(value.trim())) {
        const v = value.trim()
        const m = DATE_RE.exec(v.slice(0, 10))!
        if (validDate(+m[1]!, +m[2]!, +m[3]!)) {
          // A date or a datetime without zone is read as UTC.
          const iso = v.length === 10 ? `${v}T00:00:00Z` : /(Z|[+-]\d{2}:?\d{2})$/.test(v) ? v : `${v}Z`
          const t = Date.parse(iso.replace(' ', 'T'))
          if (!Number.isNaN(t)) return {ok: true, value: new Date(t).toISOString()}
        }
      }
      return {ok: false, message: 'must be an ISO 8601 date-time'}
    }
    case 'date': {
      if (typeof value === 'string') {
        const v = value.trim()
        const m = DATE_RE.exec(v.slice(0, 10))
        if (m && (v.length === 10 || DATETIME_RE.test(v)) && validDate(+m[1]!, +m[2]!, +m[3]!)) return {ok: true, value: v.slice(0, 10)}
      }
      return {ok: false, message: 'must be a date (YYYY-MM-DD)'}
    }
    case 'time': {
      if (typeof value === 'string') {
        const m = TIME_RE.exec(value.trim())
        if (m && +m[1]! < 24 && +m[2]! < 60 && +(m[3] ?? 0) < 60) return {ok: true, value: `${m[1]}:${m[2]}:${m[3] ?? '00'}`}
      }
      return {ok: false, message: 'must be a time (HH:MM or HH:MM:SS)'}
    }
  }
}

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '')

/**
 * Converts the data of a record by the fields of its table and checks `required`.
 * Fields the schema does not name are kept as given (free-form JSON). Errors: a 422 field map.
 */
export function validateData(table: TablePlan | undefined, data: Data, collect?: FieldErrorBag): Data {
  const bag = collect ?? new FieldErrorBag()
  const out: Data = {...data}
  if (!table) return out
  for (const [name, def] of Object.entries(table.fields)) {
    const value = own(data, name)
    if (blank(value)) {
      if (def.required) bag.add(name, 'is required')
      continue
    }
    const c = convert(def.type, value)
    if (c.ok) out[name] = c.value
    else bag.add(name, c.message)
  }
  if (!collect) bag.throwIfAny()
  return out
}

/** Index column values of a record of `table` (all null outside a table plan). */
export function indexValues(table: TablePlan | undefined, data: Data): IndexValues {
  const out = Object.fromEntries(INDEX_COLUMNS.map((c) => [c, null])) as IndexValues
  if (!table) return out
  for (const [field, column] of Object.entries(table.indexes)) out[column] = indexValue(column, own(data, field))
  return out
}

/** The value an index column holds for a field value (null when it does not fit the column). */
/** The index values of a stored record of `tableName` under a schema's plan (a schema change rebuilds them with it). */
export const indexerOf = (plan: SchemaPlan) => (tableName: string | null, data: Data): IndexValues => indexValues(tablePlan(plan, tableName), data)

export function indexValue(column: IndexColumn, value: unknown): string | number | null {
  if (value === null || value === undefined) return null
  if (column.startsWith('idx_str')) {
    if (typeof value === 'string') return value.slice(0, STR_INDEX_MAX)
    if (typeof value === 'number' || typeof value === 'boolean') return String(value)
    return null
  }
  if (column.startsWith('idx_int')) {
    const c = convert('number', value)
    return c.ok ? (c.value as number) : null
  }
  if (typeof value !== 'string') return null
  const type: FieldType = DATE_RE.test(value.trim()) ? 'date' : TIME_RE.test(value.trim()) ? 'time' : 'datetime'
  const c = convert(type, value)
  return c.ok ? (c.value as string) : null
}

/** The table of a record write (`table_name` of a body the contract has checked) against the db's own tables. */
export function recordTable(plan: SchemaPlan, raw: string | null | undefined, mode: 'create' | 'update'): {tableName: string | null; table?: TablePlan} {
  const bag = new FieldErrorBag()
  const given = raw === undefined || raw === null || raw === '' ? null : raw
  if (!plan.multi) {
    if (given !== null) bag.add('table_name', 'must be empty: this database has no tables').throwIfAny()
    return {tableName: null, table: tablePlan(plan, null)}
  }
  if (given === null) {
    if (mode === 'create') bag.add('table_name', `is required; one of: ${tableNames(plan).join(', ')}`).throwIfAny()
    return {tableName: null}
  }
  const table = tablePlan(plan, given)
  if (!table) bag.add('table_name', `is not a table of this database; one of: ${tableNames(plan).join(', ')}`).throwIfAny()
  return {tableName: given, table}
}

/** 422 under `data` when the record's data, as JSON, is larger than `maxBytes` (the `record_bytes` quota). */
export function checkRecordSize(data: Data, maxBytes: number): void {
  const bytes = Buffer.byteLength(JSON.stringify(data))
  if (maxBytes > 0 && bytes > maxBytes) new FieldErrorBag().add('data', `is ${bytes} bytes; a record holds at most ${maxBytes} bytes`).throwIfAny()
}
