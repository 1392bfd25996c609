/**
 * The wire of every client of the API, zod-free and server-free: a query string from an object,
 * an operation's request from its id and input, an answer read back (JSON, text, nothing) and an
 * error answer read back into the SvcError the server threw. The CLI's Client (./backend.ts), the
 * `svc` package's createClient (src/sdk.ts) and the standalone client package (packages/client,
 * `svc-api-client`) all run this one file.
 */
import {fillPath, OPERATIONS, type OperationId} from '../core/contract/operations.js'
import {SvcError, type ErrorCode} from '../core/errors.js'

export interface CallOptions {
  query?: Record<string, string | number | boolean | undefined | (string | number)[]>
  body?: unknown
  headers?: Record<string, string>
}

/** Builds `path?query` with repeated keys for arrays; an object value is sent as `key[member]=value` (deepObject). */
export function withQuery(path: string, query?: CallOptions['query']): string {
  if (!query) return path
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v))
    else if (value !== null && typeof value === 'object') {
      for (const [member, v] of Object.entries(value as Record<string, unknown>)) if (v !== undefined) params.append(`${key}[${member}]`, String(v))
    } else params.append(key, String(value))
  }
  const qs = params.toString()
  return qs ? `${path}${path.includes('?') ? '&' : '?'}${qs}` : path
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'bad_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 409: 'conflict',
  412: 'precondition_failed', 413: 'payload_too_large', 422: 'validation', 429: 'rate_limited',
}

/** Reads an error response back into the same SvcError the server threw. */
export async function errorFromResponse(res: Response): Promise<SvcError> {
  const text = await res.text()
  let body: Record<string, unknown> = {}
  try {
    const parsed = JSON.parse(text)
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>
  } catch {
    body = {error: text.slice(0, 500) || res.statusText}
  }
  const code = CODE_BY_STATUS[res.status] ?? (res.status >= 500 ? 'internal' : 'bad_request')
  if (res.status === 422 && typeof body.error !== 'string') {
    const summary = Object.entries(body).map(([f, m]) => `${f}: ${Array.isArray(m) ? m.join(', ') : String(m)}`).join('; ')
    return new SvcError('validation', 422, summary || 'validation failed', body)
  }
  const {error, ...details} = body
  const message = typeof error === 'string' ? error : res.statusText || 'request failed'
  return new SvcError(code, res.status, message, Object.keys(details).length > 0 ? details : undefined)
}

/** The input of an operation call, as the runtime sees it. */
export interface OperationInput {
  params?: Record<string, string | number>
  query?: unknown
  body?: unknown
  headers?: Record<string, string>
}

/** The request of an operation: `{method, path, options}` (path without the query string). */
export function operationRequest(op: OperationId, input: OperationInput = {}) {
  const entry = OPERATIONS[op]
  if (!entry) throw new TypeError(`unknown operation ${String(op)}`)
  const options: CallOptions = {headers: input.headers, query: input.query as CallOptions['query']}
  if (input.body !== undefined) options.body = input.body
  return {method: entry.method.toUpperCase(), path: fillPath(entry.path, input.params), options}
}

/** Reads an answer: JSON when it says so, undefined for 204, text otherwise. */
export async function readAnswer(res: Response): Promise<unknown> {
  if (res.status === 204) return undefined
  const type = res.headers.get('content-type') ?? ''
  return /[/+]json\b/i.test(type) ? res.json() : res.text()
}

/** The fetch init of a call: JSON accepted and sent. */
export function requestInit(method: string, options: CallOptions = {}): RequestInit {
  const headers: Record<string, string> = {accept: 'application/json', ...options.headers}
  let body: string | undefined
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(options.body)
  }
  return {method, headers, body}
}
