/**
 * The replace endpoints (decisions.md "Replace endpoints"): one body format and one string edit,
 * shared by `PATCH /svc/apps/:id/replace.json` and `PATCH /svc/dbs/:id/replace.json`.
 */
import {FieldErrorBag, validation} from './errors.js'

export interface ReplaceRequest<F extends string = string> {
  field: F
  oldString: string
  newString: string
  replaceAll: boolean
}

/** Reads `field` (one of `fields`), `old_string`/`old`, `new_string`/`new`, `replace_all`; one 422 with every problem. */
export function parseReplace<F extends string>(body: Record<string, unknown>, fields: readonly F[]): ReplaceRequest<F> {
  const errors = new FieldErrorBag()
  const field = body.field
  if (typeof field !== 'string' || !(fields as readonly string[]).includes(field)) errors.add('field', `must be one of ${fields.join(', ')}`)
  const oldString = body.old_string ?? body.old
  const newString = body.new_string ?? body.new
  if (typeof oldString !== 'string' || oldString === '') errors.add('old_string', "can't be blank")
  if (typeof newString !== 'string') errors.add('new_string', 'is required (a string, may be empty)')
  const replaceAll = body.replace_all
  if (replaceAll !== undefined && typeof replaceAll !== 'boolean') errors.add('replace_all', 'must be true or false')
  errors.throwIfAny()
  return {field: field as F, oldString: oldString as string, newString: newString as string, replaceAll: replaceAll === true}
}

/** Occurrences of `needle` in `text` (non-overlapping). */
export const countOccurrences = (text: string, needle: string) => text.split(needle).length - 1

/** Applies the edit to `text`; 422 when `old_string` is missing, or found several times without `replace_all`. */
export function replaceText(text: string, req: ReplaceRequest): string {
  const n = countOccurrences(text, req.oldString)
  if (n === 0) throw validation({old_string: ['not found']})
  if (n > 1 && !req.replaceAll) throw validation({old_string: [`matches ${n} places; send replace_all`]})
  return req.replaceAll ? text.split(req.oldString).join(req.newString) : text.replace(req.oldString, () => req.newString)
}
