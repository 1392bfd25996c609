/** `PATCH /svc/apps/:id/replace.json` (decisions.md "Replace endpoints"): pure string edit rules. */
import {MAX_JSON_DEPTH, nestedDeeperThan} from '../json-depth.js'
import {validation} from '../errors.js'
import {countOccurrences, replaceText, type ReplaceRequest} from '../replace.js'

export const REPLACE_FIELDS = ['source_code', 'fields', 'prompt'] as const
export type ReplaceField = (typeof REPLACE_FIELDS)[number]

export type AppReplaceRequest = ReplaceRequest<ReplaceField>

/** The body (`field`, `old_string`/`old`, `new_string`/`new`, `replace_all`) is read by its schema: AppReplaceBody of src/core/contract/apps.ts. */

/**
 * `fields` is edited as JSON text: the compact form (as API responses show it) is tried first,
 * then the 2-space pretty form (as `svc app get` prints it). The result must be a JSON object.
 */
export function replaceInFields(fields: Record<string, unknown>, req: ReplaceRequest): Record<string, unknown> {
  const compact = JSON.stringify(fields)
  const pretty = JSON.stringify(fields, null, 2)
  const text = countOccurrences(compact, req.oldString) > 0 || countOccurrences(pretty, req.oldString) === 0 ? compact : pretty
  const edited = replaceText(text, req)
  let parsed: unknown
  try {
    parsed = JSON.parse(edited)
  } catch (e) {
    throw validation({fields: [`is not valid JSON after the replace: ${(e as Error).message}`]})
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw validation({fields: ['must stay a JSON object']})
  if (nestedDeeperThan(parsed)) throw validation({fields: [`nests deeper than ${MAX_JSON_DEPTH} levels after the replace`]})
  return parsed as Record<string, unknown>
}
