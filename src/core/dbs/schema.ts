/** Schema of a JSON database: field types, tables, index columns. Pure rules, no I/O. */
import {FieldErrorBag} from '../errors.js'
import {dict, isReservedName, RESERVED_NAMES} from '../safe-keys.js'

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
const RESERVED_HINT = `is reserved (${[...RESERVED_NAMES].slice(0, 4).join(', ')}, ...)`

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

function columnFamily(type: FieldType): readonly IndexColumn[] {
  if (type === 'string' || type === 'text') return STR_COLUMNS
  if (type === 'integer' || type === 'number') return INT_COLUMNS
  if (type === 'boolean') return []
  return TIME_COLUMNS
}


/** Parses `fields` of one table; errors go under `prefix`. */
function parseFields(raw: unknown, prefix: string, bag: FieldErrorBag): Record<string, FieldDef> {
  const fields = dict<FieldDef>()
  if (raw === undefined || raw === null) return fields
  if (!isObject(raw)) {
    bag.add(prefix, 'must be an object mapping field names to types')
    return fields
  }
  for (const [name, def] of Object.entries(raw)) {
    if (!FIELD_NAME.test(name)) {
      bag.add(prefix, `has an invalid field name "${name.slice(0, 80)}" (letters, digits, _ and -, starting with a letter or _)`)
      continue
    }
    if (isReservedName(name)) {
      bag.add(`${prefix}.${name}`, `${RESERVED_HINT}: choose another field name`)
      continue
    }
    let type: unknown
    let required: unknown = false
    if (typeof def === 'string') type = def
    else if (isObject(def)) {
      type = def.type
      required = def.required ?? false
      const extra = Object.keys(def).filter((k) => k !== 'type' && k !== 'required')
      if (extra.length) bag.add(`${prefix}.${name}`, `has unknown keys: ${extra.join(', ')}`)
    } else {
      bag.add(`${prefix}.${name}`, 'must be a type name or {type, required}')
      continue
    }
    if (typeof type !== 'string' || !(FIELD_TYPES as readonly string[]).includes(type)) {
      bag.add(`${prefix}.${name}`, `has an unknown type; use one of ${FIELD_TYPES.join(', ')}`)
      continue
    }
    if (typeof required !== 'boolean') {
      bag.add(`${prefix}.${name}`, 'required must be true or false')
      continue
    }
    fields[name] = {type: type as FieldType, required}
  }
  return fields
}

/** Index columns of a table from `indexes` (map) and/or `indexed_fields` (array). */
function parseIndexes(
  table: Record<string, unknown>, fields: Record<string, FieldDef>, prefix: string, bag: FieldErrorBag,
): Record<string, IndexColumn> {
  const out = dict<IndexColumn>()
  const used = new Set<IndexColumn>()
  if (table.indexes !== undefined && table.indexes !== null) {
    if (!isObject(table.indexes)) bag.add(`${prefix}indexes`, 'must be an object mapping field names to index columns')
    else {
      for (const [field, column] of Object.entries(table.indexes)) {
        if (!isFieldName(field)) {
          bag.add(`${prefix}indexes`, `has an invalid field name "${String(field).slice(0, 80)}"`)
          continue
        }
        if (typeof column !== 'string' || !(INDEX_COLUMNS as readonly string[]).includes(column)) {
          bag.add(`${prefix}indexes.${field}`, `must be one of ${INDEX_COLUMNS.join(', ')}`)
          continue
        }
        const col = column as IndexColumn
        if (used.has(col)) {
          bag.add(`${prefix}indexes.${field}`, `${col} is already used by another field`)
          continue
        }
        const def = fields[field]
        if (def && !columnFamily(def.type).includes(col)) {
          bag.add(`${prefix}indexes.${field}`, `${col} does not fit a ${def.type} field`)
          continue
        }
        used.add(col)
        out[field] = col
      }
    }
  }
  if (table.indexed_fields !== undefined && table.indexed_fields !== null) {
    if (!Array.isArray(table.indexed_fields)) bag.add(`${prefix}indexed_fields`, 'must be an array of field names')
    else {
      for (const field of table.indexed_fields) {
        if (!isFieldName(field)) {
          bag.add(`${prefix}indexed_fields`, `has an invalid field name "${String(field).slice(0, 80)}"`)
          continue
        }
        if (out[field]) continue
        const def = fields[field]
        if (!def) {
          bag.add(`${prefix}indexed_fields`, `names "${field}", which is not a field of the schema`)
          continue
        }
        // Overflow (more fields than columns of the family) is simply not indexed.
        const free = columnFamily(def.type).find((c) => !used.has(c))
        if (!free) continue
        used.add(free)
        out[field] = free
      }
    }
  }
  return out
}

const TABLE_KEYS = new Set(['fields', 'indexes', 'indexed_fields'])
const SCHEMA_KEYS = new Set(['fields', 'indexes', 'indexed_fields', 'tables'])

/**
 * Validates a schema and returns its plan, or throws a 422 field map (keys under `schema`).
 * `null`/`undefined`/`{}` is a free-form database.
 */
export function planSchema(schema: unknown, errorKey = 'schema'): SchemaPlan {
  const bag = new FieldErrorBag()
  const tables = new Map<string, TablePlan>()
  if (schema === undefined || schema === null) {
    tables.set('', {name: null, fields: dict(), indexes: dict()})
    return {multi: false, tables, declared: false}
  }
  if (!isObject(schema)) {
    bag.add(errorKey, 'must be an object').throwIfAny()
    throw new Error('unreachable')
  }
  const unknown = Object.keys(schema).filter((k) => !SCHEMA_KEYS.has(k))
  if (unknown.length) bag.add(errorKey, `has unknown keys: ${unknown.join(', ')}`)
  if (schema.tables !== undefined && schema.tables !== null) {
    if (schema.fields !== undefined || schema.indexes !== undefined || schema.indexed_fields !== undefined) {
      bag.add(errorKey, 'uses either tables or top-level fields, not both')
    }
    if (!isObject(schema.tables)) bag.add(`${errorKey}.tables`, 'must be an object mapping table names to {fields, indexed_fields}')
    else {
      if (Object.keys(schema.tables).length === 0) bag.add(`${errorKey}.tables`, 'must name at least one table')
      for (const [name, table] of Object.entries(schema.tables)) {
        const prefix = `${errorKey}.tables.${name.slice(0, 80)}`
        if (!TABLE_NAME.test(name) || isReservedName(name)) {
          bag.add(`${errorKey}.tables`, `has an invalid table name "${name.slice(0, 80)}"`)
          continue
        }
        if (!isObject(table)) {
          bag.add(prefix, 'must be an object {fields, indexed_fields}')
          continue
        }
        const extra = Object.keys(table).filter((k) => !TABLE_KEYS.has(k))
        if (extra.length) bag.add(prefix, `has unknown keys: ${extra.join(', ')}`)
        const fields = parseFields(table.fields, `${prefix}.fields`, bag)
        tables.set(name, {name, fields, indexes: parseIndexes(table, fields, `${prefix}.`, bag)})
      }
    }
    bag.throwIfAny()
    return {multi: true, tables, declared: true}
  }
  const fields = parseFields(schema.fields, `${errorKey}.fields`, bag)
  const indexes = parseIndexes(schema, fields, `${errorKey}.`, bag)
  bag.throwIfAny()
  tables.set('', {name: null, fields, indexes})
  return {multi: false, tables, declared: Object.keys(fields).length > 0 || Object.keys(indexes).length > 0}
}

/** The plan of one table of a database, or undefined (the null table of a multi-table db has none). */
export function tablePlan(plan: SchemaPlan, tableName: string | null): TablePlan | undefined {
  if (!plan.multi) return plan.tables.get('')
  return tableName === null ? undefined : plan.tables.get(tableName)
}

export const tableNames = (plan: SchemaPlan): string[] => (plan.multi ? [...plan.tables.keys()] : [])
