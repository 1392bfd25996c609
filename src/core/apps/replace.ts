/** `PATCH /svc/apps/:id/replace.json` (decisions.md "Replace endpoints"): pure string edit rules. */
import {FieldErrorBag, validation} from '../errors.js'

export const REPLACE_FIELDS = ['source_code', 'fields', 'prompt'] as const
export type ReplaceField = (typeof REPLACE_FIELDS)[number]

export interface ReplaceRequest {
  field: ReplaceField
  oldString: string
  newString: string
  replaceAll: boolean
}

/** Reads the body: `field`, `old_string`/`old`, `new_string`/`new`, `replace_all`. */
export function parseReplace(body: Record<string, unknown>): ReplaceRequest {
  const errors = new FieldErrorBag()
  const field = body.field
  if (typeof field !== 'string' || !(REPLACE_FIELDS as readonly string[]).includes(field)) {
    errors.add('field', `must be one of ${REPLACE_FIELDS.join(', ')}`)
  }
  const oldString = body.old_string ?? body.old
  const newString = body.new_string ?? body.new
  if (typeof oldString !== 'string' || oldString === '') errors.add('old_string', "can't be blank")
  if (typeof newString !== 'string') errors.add('new_string', 'is required (a string, may be empty)')
  const replaceAll = body.replace_all
  if (replaceAll !== undefined && typeof replaceAll !== 'boolean') errors.add('replace_all', 'must be true or false')
  errors.throwIfAny()
  return {field: field as ReplaceField, oldString: oldString as string, newString: newString as string, replaceAll: replaceAll === true}
}

const count = (text: string, needle: string) => text.split(needle).length - 1

/** Applies the edit to `text`; 422 when `old_string` is missing or ambiguous without `replace_all`. */
export function applyReplace(text: string, req: ReplaceRequest): string {
  const n = count(text, req.oldString)
  if (n === 0) throw validation({old_string: ['not found']})
  if (n > 1 && !req.replaceAll) throw validation({old_string: [`matches ${n} places; send replace_all`]})
  return req.replaceAll ? text.split(req.oldString).join(req.newString) : text.replace(req.oldString, () => req.newString)
}

/**
 * `fields` is edited as JSON text: the compact form (as API responses show it) is tried first,
 * then the 2-space pretty form (as `svc app get` prints it). The result must be a JSON object.
 */
export function replaceInFields(fields: Record<string, unknown>, req: ReplaceRequest): Record<string, unknown> {
  const compact = JSON.stringify(fields)
  const pretty = JSON.stringify(fields, null, 2)
  const text = count(compact, req.oldString) > 0 || count(pretty, req.oldString) === 0 ? compact : pretty
  const edited = applyReplace(text, req)
  let parsed: unknown
  try {
    parsed = JSON.parse(edited)
  } catch (e) {
    throw validation({fields: [`is not valid JSON after the replace: ${(e as Error).message}`]})
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw validation({fields: ['must stay a JSON object']})
  return parsed as Record<string, unknown>
}
