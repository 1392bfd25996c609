/** The typed difference between a database on the backend and a local definition (`svc db push`). Pure. */
import {planSchema, type SchemaPlan} from './schema.js'

export interface DbDefinition {
  name: string
  code: string
  app_id?: string | null
  schema?: Record<string, unknown> | null
  public_methods?: Record<string, unknown>
  fields?: Record<string, unknown>
}

export type Change =
  | {kind: 'create_db'; code: string}
  | {kind: 'name'; from: string; to: string}
  | {kind: 'app_id'; from: string | null; to: string | null}
  | {kind: 'fields'}
  | {kind: 'table_added'; table: string}
  | {kind: 'table_removed'; table: string}
  | {kind: 'field_added'; table: string | null; field: string; type: string; required: boolean}
  | {kind: 'field_removed'; table: string | null; field: string; type: string}
  | {kind: 'field_retyped'; table: string | null; field: string; from: string; to: string}
  | {kind: 'field_required'; table: string | null; field: string; required: boolean}
  | {kind: 'index_added'; table: string | null; field: string; column: string}
  | {kind: 'index_removed'; table: string | null; field: string; column: string}
  | {kind: 'index_moved'; table: string | null; field: string; from: string; to: string}
  | {kind: 'method_added'; method: string}
  | {kind: 'method_removed'; method: string}
  | {kind: 'method_changed'; method: string}

/** Tables of a plan keyed by name; a single-table schema is the table null (key ''). */
const tablesOf = (plan: SchemaPlan) => new Map([...plan.tables].map(([k, t]) => [plan.multi ? k : '', t]))
const label = (key: string) => (key === '' ? null : key)
const stable = (v: unknown) => JSON.stringify(v ?? null)
const enabled = (m: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(m ?? {}).filter(([, v]) => v !== false))

export function diffDb(current: DbDefinition | null, next: DbDefinition): Change[] {
  const out: Change[] = []
  if (!current) out.push({kind: 'create_db', code: next.code})
  else {
    if (current.name !== next.name) out.push({kind: 'name', from: current.name, to: next.name})
    if ((current.app_id ?? null) !== (next.app_id ?? null) && next.app_id !== undefined) out.push({kind: 'app_id', from: current.app_id ?? null, to: next.app_id ?? null})
    if (next.fields !== undefined && stable(current.fields ?? {}) !== stable(next.fields)) out.push({kind: 'fields'})
  }
  const before = tablesOf(planSchema(current?.schema ?? null))
  const after = tablesOf(planSchema(next.schema ?? null))
  for (const key of before.keys()) if (!after.has(key) && key !== '') out.push({kind: 'table_removed', table: key})
  for (const key of after.keys()) if (!before.has(key) && key !== '') out.push({kind: 'table_added', table: key})
  for (const [key, b] of before) {
    const table = label(key)
    const a = after.get(key)
    for (const [field, def] of Object.entries(b.fields)) {
      if (!a) out.push({kind: 'field_removed', table, field, type: def.type})
      else if (!a.fields[field]) out.push({kind: 'field_removed', table, field, type: def.type})
    }
    if (!a) continue
    for (const [field, def] of Object.entries(a.fields)) {
      const old = b.fields[field]
      if (!old) continue
      if (old.type !== def.type) out.push({kind: 'field_retyped', table, field, from: old.type, to: def.type})
      if (old.required !== def.required) out.push({kind: 'field_required', table, field, required: def.required})
    }
  }
  for (const [key, a] of after) {
    const table = label(key)
    const b = before.get(key)
    for (const [field, def] of Object.entries(a.fields)) if (!b?.fields[field]) out.push({kind: 'field_added', table, field, type: def.type, required: def.required})
    const oldIdx = b?.indexes ?? {}
    for (const [field, column] of Object.entries(a.indexes)) {
      if (!oldIdx[field]) out.push({kind: 'index_added', table, field, column})
      else if (oldIdx[field] !== column) out.push({kind: 'index_moved', table, field, from: oldIdx[field]!, to: column})
    }
    for (const [field, column] of Object.entries(oldIdx)) if (!a.indexes[field]) out.push({kind: 'index_removed', table, field, column})
  }
  const mb = enabled(current?.public_methods)
  const ma = enabled(next.public_methods)
  for (const m of Object.keys(mb)) if (!(m in ma)) out.push({kind: 'method_removed', method: m})
  for (const m of Object.keys(ma)) {
    if (!(m in mb)) out.push({kind: 'method_added', method: m})
    else if (stable(mb[m]) !== stable(ma[m])) out.push({kind: 'method_changed', method: m})
  }
  return out
}

const where = (table: string | null) => (table === null ? '' : `${table}.`)

/** One line per change: `+` adds, `-` removes, `~` changes. */
export function describeChange(c: Change): string {
  switch (c.kind) {
    case 'create_db': return `+ database ${c.code} (new)`
    case 'name': return `~ name: ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`
    case 'app_id': return `~ app_id: ${c.from ?? 'none'} → ${c.to ?? 'none'}`
    case 'fields': return '~ fields (settings object) changed'
    case 'table_added': return `+ table ${c.table}`
    case 'table_removed': return `- table ${c.table}`
    case 'field_added': return `+ field ${where(c.table)}${c.field} (${c.type}${c.required ? ', required' : ''})`
    case 'field_removed': return `- field ${where(c.table)}${c.field} (${c.type})`
    case 'field_retyped': return `~ field ${where(c.table)}${c.field}: ${c.from} → ${c.to}`
    case 'field_required': return `~ field ${where(c.table)}${c.field}: ${c.required ? 'now required' : 'no longer required'}`
    case 'index_added': return `+ index ${where(c.table)}${c.field} → ${c.column}`
    case 'index_removed': return `- index ${where(c.table)}${c.field} (${c.column})`
    case 'index_moved': return `~ index ${where(c.table)}${c.field}: ${c.from} → ${c.to}`
    case 'method_added': return `+ public method ${c.method}`
    case 'method_removed': return `- public method ${c.method}`
    case 'method_changed': return `~ public method ${c.method} options changed`
  }
}

export interface Usage {
  tables: {table_name: string | null; records_count: number; fields: Record<string, number>}[]
}

/** Changes that would drop a table or a field that holds data, with the count of records affected. */
export function dataLoss(changes: Change[], usage: Usage): {change: Change; records: number}[] {
  const out: {change: Change; records: number}[] = []
  const byTable = new Map(usage.tables.map((t) => [t.table_name, t]))
  const removedTables = new Set(changes.filter((c) => c.kind === 'table_removed').map((c) => (c as {table: string}).table))
  for (const c of changes) {
    if (c.kind === 'table_removed') {
      const n = byTable.get(c.table)?.records_count ?? 0
      if (n > 0) out.push({change: c, records: n})
    } else if (c.kind === 'field_removed' && !(c.table !== null && removedTables.has(c.table))) {
      const n = byTable.get(c.table)?.fields[c.field] ?? 0
      if (n > 0) out.push({change: c, records: n})
    }
  }
  return out
}

/** Checks a definition file's shape (a usage message, or null when fine). */
export function definitionProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be a JSON object'
  const v = value as Record<string, unknown>
  if (typeof v.name !== 'string' || !v.name.trim()) return 'needs a "name"'
  if (typeof v.code !== 'string' || !v.code.trim()) return 'needs a "code" (the database is found by it)'
  return null
}

/** The file `svc db pull` writes and `svc db push` reads. */
export function definitionOf(db: {name: string; code: string | null; app_id: string | null; schema: unknown; public_methods: unknown; fields: unknown}): DbDefinition {
  return {
    name: db.name, code: db.code ?? '', app_id: db.app_id, schema: (db.schema ?? null) as DbDefinition['schema'],
    public_methods: (db.public_methods ?? {}) as Record<string, unknown>, fields: (db.fields ?? {}) as Record<string, unknown>,
  }
}
