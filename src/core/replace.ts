/**
 * The replace endpoints (decisions.md "Replace endpoints"): one body format and one string edit,
 * shared by `PATCH /svc/apps/:id/replace.json` and `PATCH /svc/dbs/:id/replace.json`.
 */
import {validation} from './errors.js'

export interface ReplaceRequest<F extends string = string> {
  field: F
  oldString: string
  newString: string
  replaceAll: boolean
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
