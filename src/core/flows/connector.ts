import {FlowRunError, type JsonObject} from './data.js'

/** A method of a custom connector (`fields.methods[]`). */
export interface ConnectorMethod {
  name: string
  http_method: HttpMethod
  /** Appended to the connector's `url`; `{name}` segments are filled from the call's params. */
  path: string
  public: boolean
}

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type HttpMethod = (typeof HTTP_METHODS)[number]

export interface ConnectorRequest {
  url: string
  method: HttpMethod
  /** JSON body (POST, PUT, PATCH), else undefined. */
  body?: string
  /** What went where, for a run's trace: the path parameters, and the other params as query or body. */
  view: JsonObject
}

const PATH_PARAM_RE = /\{([A-Za-z0-9_-]+)\}/g

/** Names of the `{name}` parameters of a method path. */
export const pathParams = (path: string) => [...path.matchAll(PATH_PARAM_RE)].map((m) => m[1]!)

const asParam = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value)

export const DOT_SEGMENT = 'must not be "." or ".." (a path segment)'

/**
 * What is wrong with `value` as the `{name}` parameter of a method path, or undefined: it is one
 * path segment, encoded, so `/` or `?` stay in it; but `.` and `..` survive encoding and the URL
 * parser would resolve them (`/items/..` is `/`), walking the upstream path with the secret.
 */
export function pathParamProblem(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return 'is required'
  const text = asParam(value)
  return text === '.' || text === '..' ? DOT_SEGMENT : undefined
}

/**
 * Builds the outgoing request of a connector method: path parameters are URL-encoded into the
 * path; the other params go to the query string (GET, DELETE) or to a JSON body (POST, PUT, PATCH).
 */
export function buildConnectorRequest(baseUrl: string, method: ConnectorMethod, params: JsonObject, label: string): ConnectorRequest {
  const rest: JsonObject = {...params}
  const used: JsonObject = {}
  const path = method.path.replace(PATH_PARAM_RE, (_m, name: string) => {
    const value = params[name]
    const problem = pathParamProblem(value)
    if (problem === 'is required') throw new FlowRunError(`${label}: parameter "${name}" is required by the path`)
    if (problem) throw new FlowRunError(`${label}: parameter "${name}" ${problem}`)
    used[name] = value
    delete rest[name]
    return encodeURIComponent(asParam(value))
  })
  const url = new URL(baseUrl.replace(/\/+$/, '') + path)
  if (method.http_method === 'GET' || method.http_method === 'DELETE') {
    for (const [key, value] of Object.entries(rest)) if (value !== undefined) url.searchParams.append(key, asParam(value))
    return {url: url.toString(), method: method.http_method, view: {http_method: method.http_method, path_params: used, query: rest}}
  }
  const view = {http_method: method.http_method, path_params: used, body: rest}
  return {url: url.toString(), method: method.http_method, body: JSON.stringify(rest), view}
}

/** The forms a secret takes in an echoed text: as is, URL-encoded, JSON-escaped and HTML-escaped. */
function secretForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1)
  const html = secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
  return [...new Set([secret, encodeURIComponent(secret), json, html])].sort((a, b) => b.length - a.length)
}

/**
 * Removes a secret from a text (error texts, upstream answers): the secret as is and as an
 * upstream would echo it in a URL, a JSON string or an HTML page. Secrets are at least 8
 * characters (validateResource); one stored before that rule is only redacted as a whole token,
 * so that a one-letter secret does not rewrite every matching letter of the text.
 */
export function redact(text: string, secret: string | null | undefined): string {
  if (!secret) return text
  if (secret.length >= 8) {
    for (const form of secretForms(secret)) text = text.split(form).join('[secret]')
    return text
  }
  const token = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return text.replace(new RegExp(`(?<![A-Za-z0-9_-])${token}(?![A-Za-z0-9_-])`, 'g'), '[secret]')
}

/** The shortest run of a secret's characters that redactExcerpt rewrites on its own. */
export const SECRET_FRAGMENT = 8

/**
 * A short excerpt of an upstream text (an error answer) that holds no part of the secret: the
 * whole text is redacted first, then its whitespace folded and the excerpt cut to `max`
 * characters — so a secret straddling the cut is already `[secret]` — and last every run of
 * SECRET_FRAGMENT or more characters that is a piece of the secret (an upstream that printed a
 * prefix, or wrapped the secret on two lines) becomes `[secret]` too. Linear in the excerpt.
 */
export function redactExcerpt(text: string, max: number, secret: string | null | undefined): string {
  const cut = redact(text, secret).replace(/\s+/g, ' ').trim().slice(0, max)
  return secret && secret.length >= SECRET_FRAGMENT ? redactFragments(cut, secret) : cut
}

/** Rewrites each run of the text made of SECRET_FRAGMENT-character pieces of the secret (any form) as `[secret]`. */
export function redactFragments(text: string, secret: string): string {
  const n = SECRET_FRAGMENT
  const pieces = new Set<string>()
  for (const form of secretForms(secret)) for (let i = 0; i + n <= form.length; i++) pieces.add(form.slice(i, i + n))
  let out = ''
  let covered = 0 // text before this index is in `out` or redacted
  let runEnd = -1
  for (let i = 0; i + n <= text.length; i++) {
    if (!pieces.has(text.slice(i, i + n))) continue
    if (i > runEnd) {
      if (runEnd >= 0) out += '[secret]'
      out += text.slice(covered, i)
    }
    runEnd = i + n
    covered = runEnd
  }
  if (runEnd >= 0) out += '[secret]'
  return out + text.slice(covered)
}

/** A parsed upstream answer with the secret redacted from every string in it (keys included). */
export function redactValue(value: unknown, secret: string | null | undefined): unknown {
  if (!secret) return value
  if (typeof value === 'string') return redact(value, secret)
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secret))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k, secret), redactValue(v, secret)]))
  }
  return value
}
