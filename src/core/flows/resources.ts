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
import type {ResourceView as Resource} from '../contract/flows.js'

/** What is written: `secret_token` undefined keeps the stored one, null clears it. */
export interface ResourceWrite {
  kind: ResourceKind
  code: string
  name: string
  url: string | null
  secret_token?: string | null
  fields: JsonObject
}

const ALLOWED = ['kind', 'code', 'name', 'url', 'secret_token', 'fields']
const MAX_NAME = 255
const MAX_URL = 2000
const MAX_SECRET = 4096
/** Shorter secrets are refused: a secret is redacted from upstream answers, and a short one would match ordinary text. */
export const MIN_SECRET = 8
const MAX_PATH = 1000

const isPlainObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * Validates the body of a resource POST (no `existing`) or PATCH (`existing` given, any subset of
 * fields). Throws one 422 with every problem; returns the full normalised resource to store.
 */
export function validateResource(raw: JsonObject, existing?: Resource): ResourceWrite {
  const errors = new FieldErrorBag()
  for (const key of Object.keys(raw)) if (!ALLOWED.includes(key)) errors.add(key, 'is not a known field')

  let kind = existing?.kind as ResourceKind | undefined
  if (raw.kind !== undefined || !existing) {
    if (typeof raw.kind !== 'string' || !(RESOURCE_KINDS as readonly string[]).includes(raw.kind)) {
      errors.add('kind', raw.kind === undefined ? "can't be blank" : `must be one of ${RESOURCE_KINDS.join(', ')}`)
    } else if (existing && raw.kind !== existing.kind) errors.add('kind', 'cannot be changed')
    else kind = raw.kind as ResourceKind
  }

  let code = existing?.code ?? ''
  if (raw.code !== undefined || !existing) {
    if (typeof raw.code !== 'string' || raw.code.trim() === '') errors.add('code', "can't be blank")
    else if (!CODE_RE.test(raw.code)) errors.add('code', 'must be 1-64 characters: letters, digits, _ and -, starting with a letter or digit')
    else code = raw.code
  }

  let name = existing?.name ?? ''
  if (raw.name !== undefined && raw.name !== null) {
    if (typeof raw.name !== 'string') errors.add('name', 'must be a string')
    else if (raw.name.length > MAX_NAME) errors.add('name', `is too long (maximum is ${MAX_NAME} characters)`)
    else name = raw.name.trim()
  }
  if (!name) name = code

  let url = existing?.url ?? null
  if (raw.url !== undefined) {
    if (raw.url === null || raw.url === '') url = null
    else if (typeof raw.url !== 'string') errors.add('url', 'must be a string')
    else {
      const problem = checkUrl(raw.url)
      if (problem) errors.add('url', problem)
      else url = raw.url
    }
  }

  let secret: string | null | undefined
  if (raw.secret_token !== undefined) {
    if (raw.secret_token === null || raw.secret_token === '') secret = null
    else if (typeof raw.secret_token !== 'string') errors.add('secret_token', 'must be a string')
    else if (raw.secret_token.length > MAX_SECRET) errors.add('secret_token', `is too long (maximum is ${MAX_SECRET} characters)`)
    else if (raw.secret_token.length < MIN_SECRET) errors.add('secret_token', `is too short (minimum is ${MIN_SECRET} characters)`)
    else if (!/^[\x21-\x7e]+$/.test(raw.secret_token)) errors.add('secret_token', 'must be printable ASCII without spaces')
    else secret = raw.secret_token
  }

  let fields: JsonObject = existing ? structuredClone(existing.fields) : {}
  if (raw.fields !== undefined && raw.fields !== null) {
    if (!isPlainObject(raw.fields)) errors.add('fields', 'must be an object')
    else {
      // PATCH merges at the top level; a key sent as null is removed.
      for (const [key, value] of Object.entries(raw.fields)) {
        if (value === null) delete fields[key]
        else fields[key] = value
      }
    }
  }
  if (jsonBytes(fields) > FLOW_LIMITS.maxFieldsBytes) errors.add('fields', `is too large (maximum is ${FLOW_LIMITS.maxFieldsBytes} bytes)`)

  if (kind === CONNECTOR_KIND) {
    if (!url && !errors.fields.url) errors.add('url', "can't be blank")
    const methods = checkMethods(fields.methods, errors)
    if (methods) fields = {...fields, methods}
  } else if (kind === FLOW_KIND) {
    if (url) errors.add('url', 'is only used by connectors')
    if (secret || (secret === undefined && existing?.has_secret_token)) errors.add('secret_token', 'is only used by connectors')
    if (fields.methods !== undefined) errors.add('fields.methods', 'is only used by connectors')
    if (fields.program === undefined) fields = {...fields, program: []}
    const {errors: problems} = checkProgram(fields.program)
    for (const p of problems) errors.add('fields.program', p)
  }
  errors.throwIfAny()
  const write: ResourceWrite = {kind: kind!, code, name, url, fields}
  if (secret !== undefined) write.secret_token = secret
  return write
}

function checkUrl(value: string): string | null {
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

function checkMethods(value: unknown, errors: FieldErrorBag): ConnectorMethod[] | undefined {
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
      name: String(name), http_method: httpMethod as HttpMethod, path: String(path), public: raw.public === true,
    }
    if (typeof raw.description === 'string') method.description = raw.description
    out.push(method)
  })
  return out
}
