// Reading a db's schema (platform-api.md "Schema"): `fields` of a single table, or `tables` of
// `{fields, indexed_fields}`; a field is a type name or `{type, required}`; null = free-form.

/** Table names of a multi-table db, [] for a single-table or free-form one. */
export const tablesOf = (db) => (db?.schema?.tables ? Object.keys(db.schema.tables) : [])

/** The schema part of one table: `{fields, indexed_fields, indexes}` or null (free-form). */
function tableSchema(db, table) {
  if (!db?.schema) return null
  if (db.schema.tables) return db.schema.tables[table] ?? null
  return db.schema
}

/** Declared fields of a table: [{name, type, required, indexed}]. */
export function fieldsOf(db, table) {
  const t = tableSchema(db, table)
  if (!t?.fields) return []
  const indexed = new Set([...(t.indexed_fields ?? []), ...Object.keys(t.indexes ?? {})])
  return Object.entries(t.fields).map(([name, def]) => ({
    name,
    type: typeof def === 'string' ? def : def.type,
    required: typeof def === 'object' && def.required === true,
    indexed: indexed.has(name),
  }))
}

export const AUTO_COLUMNS = ['id', 'created_at', 'updated_at']

/** Columns of the grid: id, the declared fields (then any other seen in rows), created_at, updated_at. */
export function columnsOf(db, table, rows) {
  const names = fieldsOf(db, table).map((f) => f.name)
  const seen = new Set(names)
  for (const r of rows) for (const k of Object.keys(r)) if (!seen.has(k) && !AUTO_COLUMNS.includes(k) && k !== 'table_name') {
    seen.add(k)
    names.push(k)
  }
  return ['id', ...names, 'created_at', 'updated_at']
}
