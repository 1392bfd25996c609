// The record editor's inputs, generated from the schema's field types (platform-api.md "Schema":
// string, text, integer, number, boolean, datetime, date, time). Fields the schema does not
// declare (free-form data) get an input from their value: true/false, a number, a string, or
// JSON for an object or array. Form values are strings; the API converts and validates them
// (its 422 field map is shown beside each field); only JSON is parsed here, to send it as JSON.

/** The kind of input for a declared type, or for an undeclared value. */
export function kindOf(type, value) {
  if (type) return type
  if (typeof value === 'boolean') return 'boolean'
  if (typeof value === 'number') return 'number'
  if (value !== null && typeof value === 'object') return 'json'
  return 'string'
}

/** The editor's fields: declared ones first, then the record's other keys: [{name, kind, required, declared}]. */
export function formFields(declared, data = {}) {
  const out = declared.map((f) => ({name: f.name, kind: f.type, required: f.required, declared: true}))
  const seen = new Set(out.map((f) => f.name))
  for (const [name, value] of Object.entries(data ?? {})) if (!seen.has(name)) out.push({name, kind: kindOf(undefined, value), required: false, declared: false})
  return out
}

/** A stored value as the text of its input. */
export function toInput(kind, value) {
  if (value === null || value === undefined) return ''
  if (kind === 'json') return JSON.stringify(value, null, 2)
  if (kind === 'boolean') return value === true ? 'true' : value === false ? 'false' : String(value)
  // <input type=datetime-local> shows UTC wall time (the API reads a time without zone as UTC).
  if (kind === 'datetime' && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) {
    const d = new Date(value)
    return Number.isNaN(d.getTime()) ? value : d.toISOString().slice(0, 19)
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

/** An input's text as the value to send: {value} (undefined = leave out), or {error} for bad JSON. */
export function fromInput(kind, text) {
  if (text === '' || text === undefined) return {value: undefined}
  if (kind === 'json') {
    try {
      return {value: JSON.parse(text)}
    } catch (e) {
      return {error: `is not valid JSON (${e.message})`}
    }
  }
  if (kind === 'boolean') return {value: text === 'true' ? true : text === 'false' ? false : text}
  return {value: text}
}

/**
 * The `data` of a create or PATCH from the form: empty inputs left out of a create and sent as
 * null in an edit when the record had a value (clearing it). Returns {data, errors}.
 */
export function formData(fields, values, original) {
  const data = {}
  const errors = {}
  for (const f of fields) {
    const {value, error} = fromInput(f.kind, values[f.name])
    if (error) errors[f.name] = [error]
    else if (value !== undefined) data[f.name] = value
    else if (original && original[f.name] !== undefined && original[f.name] !== null) data[f.name] = null
  }
  return {data, errors}
}

/** localStorage drafts of unsaved edits, one per record (or per new record of a table). */
const DRAFT = 'svc-console-draft:'
export const draftKey = (dbId, recordId, table) => `${DRAFT}${dbId}:${recordId ?? `new:${table ?? ''}`}`
export function loadDraft(key) {
  try {
    const d = JSON.parse(localStorage.getItem(key) ?? 'null')
    return d && typeof d.values === 'object' ? d : null
  } catch {
    return null
  }
}
export function saveDraft(key, values, fields = []) {
  try {
    localStorage.setItem(key, JSON.stringify({values, fields, saved_at: new Date().toISOString()}))
  } catch {}
}
export function dropDraft(key) {
  try {
    localStorage.removeItem(key)
  } catch {}
}
