/** Database writes: what a create or a PATCH stores, and the replace operation. Pure rules. */
import type {DbChange, DbCreate} from '../contract/dbs.js'
import {MAX_JSON_DEPTH, nestedDeeperThan} from '../json-depth.js'
import {validation} from '../errors.js'
import {replaceText, type ReplaceRequest} from '../replace.js'
import type {PublicMethods} from './public-methods.js'

/** What the store writes for a database (every member). */
export interface DbInput {
  name: string
  code: string | null
  app_id: string | null
  schema: Record<string, unknown> | null
  public_methods: PublicMethods
  fields: Record<string, unknown>
}

/**
 * The database a create (no `existing`) or a PATCH (`existing`: absent members keep their value)
 * asks for, from a body its route's schema has checked (core/contract/dbs.ts: every rule of a db
 * definition is a schema rule; a taken code is the store's 422).
 */
export function dbData(input: DbCreate | DbChange, existing?: DbInput): DbInput {
  const base: DbInput = existing ?? {name: '', code: null, app_id: null, schema: null, public_methods: {}, fields: {}}
  return {
    name: input.name ?? base.name,
    code: input.code !== undefined ? input.code : base.code,
    app_id: input.app_id !== undefined ? input.app_id : base.app_id,
    schema: input.schema !== undefined ? input.schema : base.schema,
    public_methods: input.public_methods ?? base.public_methods,
    fields: input.fields ?? base.fields,
  }
}

/**
 * Applies a replace to the JSON text of a member. The text searched is the member pretty-printed
 * with two spaces (as `svc db get` and `svc db pull` show it); when `old_string` is not there, the
 * compact JSON of the API responses is tried. The result must parse as JSON (422 otherwise); the
 * caller checks it as a PATCH of that member.
 */
export function applyReplace(current: unknown, req: ReplaceRequest): unknown {
  const forms = [JSON.stringify(current ?? {}, null, 2), JSON.stringify(current ?? {})]
  const next = replaceText(forms.find((f) => f.includes(req.oldString)) ?? forms[0]!, req)
  let parsed: unknown
  try {
    parsed = JSON.parse(next)
  } catch (e) {
    throw validation({new_string: [`makes ${req.field} invalid JSON: ${(e as Error).message}`]})
  }
  if (nestedDeeperThan(parsed)) throw validation({new_string: [`makes ${req.field} nest deeper than ${MAX_JSON_DEPTH} levels`]})
  return parsed
}
