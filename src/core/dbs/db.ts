/** Database objects: input validation and the replace operation. Pure rules. */
import {MAX_JSON_DEPTH, nestedDeeperThan} from '../json-depth.js'
import {FieldErrorBag, validation} from '../errors.js'
import {parseReplace, replaceText, type ReplaceRequest} from '../replace.js'
import {validatePublicMethods, type PublicMethods} from './public-methods.js'
import {planSchema} from './schema.js'

export const CODE_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/i
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const NAME_MAX = 200

export interface DbInput {
  name: string
  code: string | null
  app_id: string | null
  schema: Record<string, unknown> | null
  public_methods: PublicMethods
  fields: Record<string, unknown>
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const DB_KEYS = new Set(['name', 'code', 'app_id', 'schema', 'public_methods', 'fields'])

/**
 * Validates the body of a create (`existing` undefined) or an update (merged over `existing`).
 * Unknown keys are ignored (read-only members such as id or records_count may be sent back).
 */
export function validateDbInput(raw: Record<string, unknown>, existing?: DbInput): DbInput {
  const bag = new FieldErrorBag()
  const has = (k: string) => Object.prototype.hasOwnProperty.call(raw, k) && DB_KEYS.has(k)
  const out: DbInput = existing
    ? {...existing}
    : {name: '', code: null, app_id: null, schema: null, public_methods: {}, fields: {}}
  if (has('name') || !existing) {
    const name = raw.name
    if (typeof name !== 'string' || name.trim() === '') bag.add('name', "can't be blank")
    else if (name.length > NAME_MAX) bag.add('name', `is too long (max ${NAME_MAX} characters)`)
    else out.name = name.trim()
  }
  if (has('code')) {
    const code = raw.code
    if (code === null || code === '') out.code = null
    else if (typeof code !== 'string' || !CODE_RE.test(code)) bag.add('code', 'must be 1-64 letters, digits, _ or -, starting with a letter or digit')
    else if (/^\d+$/.test(code)) bag.add('code', 'must not be only digits (it would read as an id)')
    else out.code = code
  }
  if (has('app_id')) {
    const appId = raw.app_id
    if (appId === null || appId === '') out.app_id = null
    else if (typeof appId !== 'string' || !UUID_RE.test(appId)) bag.add('app_id', 'must be a UUID')
    else out.app_id = appId.toLowerCase()
  }
  if (has('schema')) {
    const schema = raw.schema
    if (schema === null) out.schema = null
    else if (!isObject(schema)) bag.add('schema', 'must be an object')
    else {
      try {
        planSchema(schema)
        out.schema = Object.keys(schema).length ? schema : null
      } catch (e) {
        mergeErrors(bag, e)
      }
    }
  }
  if (has('public_methods')) {
    try {
      out.public_methods = validatePublicMethods(raw.public_methods === null ? {} : raw.public_methods)
    } catch (e) {
      mergeErrors(bag, e)
    }
  }
  if (has('fields')) {
    const fields = raw.fields
    if (fields === null) out.fields = {}
    else if (!isObject(fields)) bag.add('fields', 'must be an object')
    else out.fields = fields
  }
  bag.throwIfAny()
  return out
}

function mergeErrors(bag: FieldErrorBag, e: unknown): void {
  const details = (e as {details?: Record<string, unknown>}).details
  if (!details || (e as {code?: string}).code !== 'validation') throw e
  for (const [k, messages] of Object.entries(details)) for (const m of messages as string[]) bag.add(k, m)
}

export const REPLACEABLE = ['fields', 'schema', 'public_methods'] as const
export type Replaceable = (typeof REPLACEABLE)[number]

/** Reads the body of `PATCH /svc/dbs/:id/replace.json` (old_string/new_string or old/new). */
export const parseDbReplace = (body: Record<string, unknown>): ReplaceRequest<Replaceable> => parseReplace(body, REPLACEABLE)

/**
 * Applies a replace to the JSON text of a member. The text searched is the member pretty-printed
 * with two spaces (as `svc db get` and `svc db pull` show it); when `old_string` is not there, the
 * compact JSON of the API responses is tried. The result must parse as JSON (422 otherwise).
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
