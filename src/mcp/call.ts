/**
 * A tool call: its arguments turned into the one API request of its operation (path, query, body),
 * made through the typed client, and the answer turned into the tool's result. What an argument may
 * be is checked here only as far as building a request needs (known names, path values that are
 * ids or codes); everything else is the API's to check, and its refusal is the tool's error.
 */
import {fillPath, OPERATIONS} from '../core/contract/operations.js'
import type {Client} from '../client/backend.js'
import {readAnswer} from '../client/typed.js'
import {SvcError} from '../core/errors.js'
import {searchedFields, searchedNote} from '../core/dbs/search-note.js'
import {wrapData} from './boundary.js'
import type {ToolInput} from './input-schema.js'
import type {ToolSpec} from './tools.js'

/** A path value: an id, a UUID or a code (never `.` or `..`, never a `/`, `?`, `#` or `%`). */
export const PATH_SEGMENT = '[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,199}'
const PATH_VALUE = new RegExp(`^${PATH_SEGMENT}$`)

/** A bad argument: the tool's error, no request made. */
export class ArgumentError extends Error {}

type Scalar = string | number | boolean
const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean'
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

export interface ToolRequest {
  method: string
  path: string
  query: Record<string, string>
  body?: unknown
}

/** The request a call of `spec` with `args` makes. */
export function toolRequest(spec: ToolSpec, input: ToolInput, args: Record<string, unknown>): ToolRequest {
  const unknown = Object.keys(args).filter((k) => !Object.hasOwn(input.properties, k))
  if (unknown.length) throw new ArgumentError(`unknown argument ${unknown.map((k) => `"${k.slice(0, 40)}"`).join(', ')}; this tool takes ${Object.keys(input.properties).join(', ') || 'no arguments'}`)
  const missing = (input.required ?? []).filter((k) => args[k] === undefined || args[k] === null)
  if (missing.length) throw new ArgumentError(`missing argument ${missing.join(', ')}`)
  const {method, path: template} = OPERATIONS[spec.op]
  const params: Record<string, string> = {}
  for (const [, name] of template.matchAll(/\{([^}]+)\}/g)) {
    const value = args[name!]
    if (!isScalar(value) || typeof value === 'boolean' || !PATH_VALUE.test(String(value))) throw new ArgumentError(`${name} must be an id or a code`)
    params[name!] = String(value)
  }
  const query: Record<string, string> = {...spec.fixedQuery}
  for (const name of spec.query ?? []) {
    const value = args[name]
    if (value === undefined || value === null) continue
    if (!isScalar(value)) throw new ArgumentError(`${name} must be a string or a number`)
    query[name] = String(value)
  }
  if (args.filter !== undefined && spec.extra?.filter) {
    if (!isObject(args.filter)) throw new ArgumentError('filter must be an object of field → value')
    for (const [field, value] of Object.entries(args.filter)) {
      if (!isScalar(value)) throw new ArgumentError(`filter.${field.slice(0, 40)} must be a string or a number`)
      query[`filter[${field}]`] = String(value)
    }
  }
  if (args.variables !== undefined && spec.extra?.variables) {
    if (!isObject(args.variables)) throw new ArgumentError('variables must be an object of name → value')
    Object.assign(query, variablesQuery(args.variables))
  }
  let body: unknown
  if (spec.body && 'whole' in spec.body) {
    const value = args[spec.body.whole] ?? {}
    if (!isObject(value)) throw new ArgumentError(`${spec.body.whole} must be an object`)
    body = value
  } else if (spec.body) {
    const members: Record<string, unknown> = {}
    for (const name of spec.body.members) if (args[name] !== undefined) members[name] = args[name]
    body = spec.body.envelope ? {[spec.body.envelope]: members} : members
  } else if (method !== 'get' && method !== 'delete') body = {}
  return {method: method.toUpperCase(), path: fillPath(template, params), query, body}
}

/** Template variables as the render's query parameters: strings as they are, other values as `name:json`. */
export function variablesQuery(variables: Record<string, unknown>): Record<string, string> {
  const query: Record<string, string> = {}
  for (const [name, value] of Object.entries(variables)) {
    if (value === undefined) continue
    if (typeof value === 'string') query[name] = value
    else query[`${name}:json`] = JSON.stringify(value)
  }
  return query
}

export interface ToolResult {
  [key: string]: unknown
  content: {type: 'text'; text: string}[]
  isError?: boolean
}

const text = (t: string, isError = false): ToolResult => ({content: [{type: 'text', text: t}], ...(isError ? {isError} : {})})

/** Keeps the members of `keep` of an object, or of each object of a list. */
function kept(value: unknown, keep: readonly string[] | undefined): unknown {
  if (!keep) return value
  const pick = (v: unknown) => (isObject(v) ? Object.fromEntries(keep.filter((k) => Object.hasOwn(v, k)).map((k) => [k, v[k]])) : v)
  return Array.isArray(value) ? value.map(pick) : pick(value)
}

/** Makes the request of a call and shapes its answer; the API's refusal is an error result. */
export async function runTool(client: Client, spec: ToolSpec, request: ToolRequest): Promise<ToolResult> {
  const res = await client.raw(request.method, request.path, {query: request.query, body: request.body})
  const answer = await readAnswer(res)
  if (answer === undefined) return text('Done: deleted.')
  const out = typeof answer === 'string' ? answer : JSON.stringify(kept(answer, spec.keep))
  const result = text(spec.data ? wrapData(out) : out)
  const note = Array.isArray(answer) && answer.length === 0 ? await emptySearchNote(client, spec, request) : null
  if (note) result.content.unshift({type: 'text', text: note})
  // A write the API accepted but warns about (a js source a browser would refuse): the agent is told.
  const warning = res.headers.get('x-svc-warning')
  if (warning) result.content.push({type: 'text', text: `Warning: ${warning}`})
  return result
}

/**
 * An empty `dbs_search` with `q` (and no `search_in`) says where `q` looked, as `svc db search`
 * does: an agent that gets `[]` alone would conclude the text is nowhere in the records.
 */
async function emptySearchNote(client: Client, spec: ToolSpec, request: ToolRequest): Promise<string | null> {
  if (spec.op !== 'searchRecords' || !request.query.q || request.query.search_in || Number(request.query.offset ?? 0) > 0) return null
  const dbPath = request.path.replace(/\/search\.json$/, '.json')
  try {
    const db = await client.json<{schema: unknown}>('GET', dbPath)
    return `No records match. ${searchedNote(searchedFields(db.schema, request.query.table_name ?? null), {q: 'q', searchIn: 'search_in', join: '='})}`
  } catch {
    return null
  }
}

/**
 * The tool error of an API refusal: the status, then the API's message and the field map of a 422
 * in boundary tags — they may quote workspace text (a compile error quotes the app's source lines,
 * a Liquid error the template's). An argument error is this server's own text about the agent's.
 */
export function errorResult(error: unknown): ToolResult {
  if (error instanceof ArgumentError) return text(`Invalid arguments: ${error.message}`, true)
  if (error instanceof SvcError) {
    const status = error.status ? ` ${error.status}` : ''
    const details = error.details && Object.keys(error.details).length ? `\n${JSON.stringify(error.details)}` : ''
    return text(`The API refused:${status}\n${wrapData(`${error.message}${details}`)}`, true)
  }
  return text('The call failed (internal error).', true)
}
