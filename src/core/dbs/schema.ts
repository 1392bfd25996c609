/** Schema of a JSON database: field types, tables, index columns. Pure rules, no I/O. */
import {dict, isReservedName, own, RESERVED_NAMES} from '../safe-keys.js'

export const FIELD_TYPES = ['string', 'text', 'integer', 'number', 'boolean', 'datetime', 'date', 'time'] as const
export type FieldType = (typeof FIELD_TYPES)[number]

export const STR_COLUMNS = ['idx_str_1', 'idx_str_2', 'idx_str_3'] as const
export const INT_COLUMNS = ['idx_int_1', 'idx_int_2'] as const
export const TIME_COLUMNS = ['idx_time_1', 'idx_time_2'] as const
export const INDEX_COLUMNS = [...STR_COLUMNS, ...INT_COLUMNS, ...TIME_COLUMNS] as const
export type IndexColumn = (typeof INDEX_COLUMNS)[number]
export const STR_INDEX_MAX = 255

/** A field name usable in a schema and in every request parameter naming a field. */
export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/
export const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/
/** A valid field name that is not reserved (`__proto__`, `constructor`, `toString`, ...: see core/safe-keys.ts). */
export const isFieldName = (name: unknown): name is string => typeof name === 'string' && FIELD_NAME.test(name) && !isReservedName(name)
export const RESERVED_HINT = `is reserved (${[...RESERVED_NAMES].slice(0, 4).join(', ')}, ...)`

export interface FieldDef {
  type: FieldType
  required: boolean
}

/** One table (the single table of a database has name null). */
export interface TablePlan {
  name: string | null
  fields: Record<string, FieldDef>
  /** field name → index column */
  indexes: Record<string, IndexColumn>
}

/** The normalised view of a schema that records, search and the store work from. */
export interface SchemaPlan {
  multi: boolean
  /** Single-table databases: one plan under key ''. Multi-table: one per table name. */
  tables: Map<string, TablePlan>
  /** True when the schema declares fields (or tables); false for a free-form database. */
  declared: boolean
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** The index columns a field of `type` may use. */
export function columnFamily(type: FieldType): readonly IndexColumn[] {
  if (type === 'string' || type === 'text') return STR_COLUMNS
  if (type === 'integer' || type === 'number') return INT_COLUMNS
  if (type === 'boolean') return []
  return TIME_COLUMNS
}


/** The field definitions of one table (a schema checked by core/contract/dbs.ts; anything else is skipped, never thrown). */
function planFields(raw: unknown): Record<string, FieldDef> {
  const fields = dict<FieldDef>()
  if (!isObject(raw)) return fields
  for (const [name, def] of Object.entries(raw)) {
    const type = typeof def === 'string' ? def : isObject(def) ? def.type : undefined
    if (!isFieldName(name) || typeof type !== 'string' || !(FIELD_TYPES as readonly string[]).includes(type)) continue
    fields[name] = {type: type as FieldType, required: isObject(def) && def.required === true}
  }
  return fields
}

/** Index columns of a table from `indexes` (map) and/or `indexed_fields` (array: the next free column of the field's family). */
function planIndexes(table: Record<string, unknown>, fields: Record<string, FieldDef>): Record<string, IndexColumn> {
  const out = dict<IndexColumn>()
  const used = new Set<IndexColumn>()
  for (const [field, column] of Object.entries(isObject(table.indexes) ? table.indexes : {})) {
    const col = column as IndexColumn
    const def = own(fields, field) as FieldDef | undefined
    if (!isFieldName(field) || !(INDEX_COLUMNS as readonly unknown[]).includes(col) || used.has(col) || (def && !columnFamily(def.type).includes(col))) continue
    used.add(col)
    out[field] = col
  }
  for (const field of Array.isArray(table.indexed_fields) ? table.indexed_fields : []) {
    if (!isFieldName(field) || out[field]) continue
    const def = own(fields, field) as FieldDef | undefined
    // Overflow (more fields than columns of the family) is simply not indexed.
    const free = def && columnFamily(def.type).find((c) => !used.has(c))
    if (!free) continue
    used.add(free)
    out[field] = free
  }
  return out
}

/**
 * The plan of a schema the contract has checked (`DbSchema` of core/contract/dbs.ts says what a
 * schema may be; a stored or local one is read the same way, what does not fit is left out).
 * `null`/`undefined`/`{}` is a free-form database.
 */
export function planSchema(schema: unknown): SchemaPlan {
  const tables = new Map<string, TablePlan>()
  if (!isObject(schema)) {
    tables.set('', {name: null, fields: dict(), indexes: dict()})
    return {multi: false, tables, declared: false}
  }
  if (schema.tables !== undefined && schema.tables !== null) {
    for (const [name, table] of Object.entries(isObject(schema.tables) ? schema.tables : {})) {
      if (!TABLE_NAME.test(name) || isReservedName(name) || !isObject(table)) continue
      const fields = planFields(table.fields)
      tables.set(name, {name, fields, indexes: planIndexes(table, fields)})
    }
    return {multi: true, tables, declared: true}
  }
  const fields = planFields(schema.fields)
  const indexes = planIndexes(schema, fields)
  tables.set('', {name: null, fields, indexes})
  return {multi: false, tables, declared: Object.keys(fields).length > 0 || Object.keys(indexes).length > 0}
}

/** The plan of one table of a database, or undefined (the null table of a multi-table db has none). */
export function tablePlan(plan: SchemaPlan, tableName: string | null): TablePlan | undefined {
  if (!plan.multi) return plan.tables.get('')
  return tableName === null ? undefined : plan.tables.get(tableName)
}

export const tableNames = (plan: SchemaPlan): string[] => (plan.multi ? [...plan.tables.keys()] : [])
