// The schema editor's form (platform-api.md "Schema"): a db's schema as tables of field rows
// (name, type, required, indexed) and back. One table without a name is a single-table db; named
// tables make a multi-table one; no field at all in a single table is a free-form db (null).

export const FIELD_TYPES = ['string', 'text', 'integer', 'number', 'boolean', 'datetime', 'date', 'time']

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

function tableForm(name, t) {
  const indexed = new Set([...(Array.isArray(t?.indexed_fields) ? t.indexed_fields : []), ...Object.keys(isObject(t?.indexes) ? t.indexes : {})])
  const fields = Object.entries(isObject(t?.fields) ? t.fields : {}).map(([field, def]) => ({
    name: field,
    type: typeof def === 'string' ? def : def?.type ?? 'string',
    required: isObject(def) && def.required === true,
    indexed: indexed.has(field),
  }))
  return {name, fields, indexes: isObject(t?.indexes) ? {...t.indexes} : {}}
}

/** A stored schema as the form: {multi, tables: [{name, fields: [{name, type, required, indexed}], indexes}]}. */
export function formOfSchema(schema) {
  if (isObject(schema) && isObject(schema.tables)) return {multi: true, tables: Object.entries(schema.tables).map(([name, t]) => tableForm(name, t))}
  return {multi: false, tables: [tableForm('', isObject(schema) ? schema : null)]}
}

function tableSchema(t) {
  const fields = {}
  const indexed = []
  const indexes = {}
  for (const f of t.fields) {
    const name = f.name.trim()
    if (!name) continue
    fields[name] = f.required ? {type: f.type, required: true} : f.type
    if (f.indexed) {
      // An index column chosen by hand (`indexes`) is kept while the field stays indexed.
      if (t.indexes?.[name]) indexes[name] = t.indexes[name]
      else indexed.push(name)
    }
  }
  return {fields, ...(indexed.length ? {indexed_fields: indexed} : {}), ...(Object.keys(indexes).length ? {indexes} : {})}
}

/** The form as the schema to send: `{fields, indexed_fields}`, `{tables: {…}}`, or null (free-form). */
export function schemaOfForm(form) {
  if (form.multi) return {tables: Object.fromEntries(form.tables.map((t) => [t.name.trim(), tableSchema(t)]))}
  const t = tableSchema(form.tables[0])
  return Object.keys(t.fields).length ? t : null
}

export const newField = () => ({name: '', type: 'string', required: false, indexed: false})
