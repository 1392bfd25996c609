import {FieldErrorBag} from '../errors.js'
import {HTTP_METHODS, type ConnectorMethod, type HttpMethod} from './connector.js'
import {jsonBytes, type JsonObject} from './data.js'
import {FLOW_LIMITS} from './limits.js'
import {checkProgram, CODE_RE, METHOD_NAME_RE} from './program.js'

export const CONNECTOR_KIND = 'svc/custom_connector'
export const FLOW_KIND = 'svc/custom_flow'
export const RESOURCE_KINDS = [CONNECTOR_KIND, FLOW_KIND] as const
export type ResourceKind = (typeof RESOURCE_KINDS)[number]

/** As the API shows it: the contract's (src/core/contract/flows.ts). */
export type {ResourceView as Resource} from '../contract/flows.js'
import type {ResourceCreate, ResourcePatch, ResourceView as Resource} from '../contract/flows.js'

/** What is written: `secret_token` undefined keeps the stored one, null clears it. */
export interface ResourceWrite {
  kind: ResourceKind
  code: string
  name: string
  url: string | null
  secret_token?: string | null
  fields: JsonObject
}

export const MAX_NAME = 255
export const MAX_URL = 2000
export const MAX_SECRET = 4096
/** Shorter secrets are refused: a secret is redacted from upstream answers, and a short one would match ordinary text. */
export const MIN_SECRET = 8
const MAX_PATH = 1000
export const CODE_MESSAGE = 'must be 1-64 characters: letters, digits, _ and -, starting with a letter or digit'

const isPlainObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v)

/** What is wrong with a connector url (null when usable): an absolute http(s) address without credentials, query or fragment. */
export function urlProblem(value: string): string | null {
  if (value.length > MAX_URL) return `is too long (maximum is ${MAX_URL} characters)`
  let parsed: URL
  try {
    parsed = new URL(value)
  } catch {
    return 'must be an absolute http or https address'
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an absolute http or https address'
  if (parsed.username || parsed.password) return 'must not carry credentials (use secret_token)'
  if (parsed.search || parsed.hash) return 'must not have a query or fragment (methods add them)'
  return null
}

/** What is wrong with a secret (null when usable); the first problem only. */
export function secretProblem(value: string): string | null {
  if (value.length > MAX_SECRET) return `is too long (maximum is ${MAX_SECRET} characters)`
  if (value.length < MIN_SECRET) return `is too short (minimum is ${MIN_SECRET} characters)`
  if (!/^[\x21-\x7e]+$/.test(value)) return 'must be printable ASCII without spaces'
  return null
}

/** A resource as its kind-dependent rules see it: the values a write ends with (invalid ones already left out). */
export interface ResourceShape {
  kind: ResourceKind | undefined
  url: string | null
  /** A usable secret is sent, or (PATCH) stored and not cleared. */
  hasSecret: boolean
  fields: JsonObject
}

/**
 * The rules across members that only code can say: a connector needs a url and valid methods, a
 * flow a valid program and no url, secret or methods; `fields` within its size. Reports each
 * problem through `add`; answers the connector's normalised methods.
 */
export function resourceRules(r: ResourceShape, add: (field: string, message: string) => void, urlInvalid = false): ConnectorMethod[] | undefined {
  if (jsonBytes(r.fields) > FLOW_LIMITS.maxFieldsBytes) add('fields', `is too large (maximum is ${FLOW_LIMITS.maxFieldsBytes} bytes)`)
  if (r.kind === CONNECTOR_KIND) {
    if (!r.url && !urlInvalid) add('url', "can't be blank")
    return checkMethods(r.fields.methods, add)
  }
  if (r.kind === FLOW_KIND) {
    if (r.url) add('url', 'is only used by connectors')
    if (r.hasSecret) add('secret_token', 'is only used by connectors')
    if (r.fields.methods !== undefined) add('fields.methods', 'is only used by connectors')
    const {errors: problems} = checkProgram(r.fields.program === undefined ? [] : r.fields.program)
    for (const p of problems) add('fields.program', p)
  }
  return undefined
}

/**
 * The resource a create (no `existing`) or a PATCH (`existing`, any subset of members) writes, from
 * a body its route's schema has checked (src/core/contract/flows.ts; on create the schema has run
 * the kind rules too). A PATCH merges `fields` at the top level (a key sent as null is removed) and
 * is checked here against the stored resource: one 422 with every problem.
 */
export function resourceData(input: ResourceCreate | ResourcePatch, existing?: Resource): ResourceWrite {
  const errors = new FieldErrorBag()
  const add = (field: string, message: string) => void errors.add(field, message)
  if (existing && input.kind !== undefined && input.kind !== existing.kind) add('kind', 'cannot be changed')
  const kind = (existing?.kind ?? input.kind) as ResourceKind
  const code = input.code ?? existing!.code
  let name = existing?.name ?? ''
  if (input.name !== undefined && input.name !== null) name = input.name.trim()
  if (!name) name = code
  const url = input.url === undefined ? existing?.url ?? null : input.url
  const secret = input.secret_token
  let fields: JsonObject = existing ? structuredClone(existing.fields) : {}
  for (const [key, value] of Object.entries(input.fields ?? {})) {
    if (value === null) delete fields[key]
    else fields[key] = value
  }
  const hasSecret = !!secret || (secret === undefined && !!existing?.has_secret_token)
  const methods = resourceRules({kind, url, hasSecret, fields}, add)
  if (methods) fields = {...fields, methods}
  else if (kind === FLOW_KIND && fields.program === undefined) fields = {...fields, program: []}
  errors.throwIfAny()
  const write: ResourceWrite = {kind, code, name, url, fields}
  if (secret !== undefined) write.secret_token = secret
  return write
}

function checkMethods(value: unknown, add: (field: string, message: string) => void): ConnectorMethod[] | undefined {
  const errors = {add}
  if (value === undefined) return []
  if (!Array.isArray(value)) {
    errors.add('fields.methods', 'must be an array of methods')
    return undefined
  }
  if (value.length > FLOW_LIMITS.maxMethods) errors.add('fields.methods', `has more than ${FLOW_LIMITS.maxMethods} methods`)
  const seen = new Set<string>()
  const out: ConnectorMethod[] = []
  value.forEach((raw, index) => {
    const at = `method ${index + 1}`
    if (!isPlainObject(raw)) return void errors.add('fields.methods', `${at}: must be an object`)
    for (const key of Object.keys(raw)) {
      if (!['name', 'http_method', 'path', 'public', 'description'].includes(key)) errors.add('fields.methods', `${at}: unknown key "${key}"`)
    }
    const name = raw.name
    if (typeof name !== 'string' || !METHOD_NAME_RE.test(name)) errors.add('fields.methods', `${at}: name must be 1-64 characters: letters, digits, _ and -`)
    else if (seen.has(name)) errors.add('fields.methods', `${at}: name "${name}" is used twice`)
    else seen.add(name)
    const httpMethod = typeof raw.http_method === 'string' ? raw.http_method.toUpperCase() : raw.http_method === undefined ? 'GET' : ''
    if (!(HTTP_METHODS as readonly string[]).includes(httpMethod)) errors.add('fields.methods', `${at}: http_method must be one of ${HTTP_METHODS.join(', ')}`)
    const path = raw.path === undefined ? '/' : raw.path
    if (typeof path !== 'string' || !path.startsWith('/') || path.length > MAX_PATH || /[\s?#]/.test(path)) {
      errors.add('fields.methods', `${at}: path must start with / and hold no spaces, ? or #`)
    } else if (/[{}]/.test(path.replace(/\{[A-Za-z0-9_-]+\}/g, ''))) {
      errors.add('fields.methods', `${at}: path placeholders look like {name}`)
    }
    if (raw.public !== undefined && typeof raw.public !== 'boolean') errors.add('fields.methods', `${at}: public must be true or false`)
    if (raw.description !== undefined && typeof raw.description !== 'string') errors.add('fields.methods', `${at}: description must be a string`)
    const method: ConnectorMethod & {description?: string} = {
      name: typeof name === 'string' ? name : '', http_method: httpMethod as HttpMethod, path: typeof path === 'string' ? path : '/', public: raw.public === true,
    }
    if (typeof raw.description === 'string') method.description = raw.description
    out.push(method)
  })
  return out
}
