import type {OperationId} from '../core/contract/operations.js'
import {SvcError, type ErrorCode} from '../core/errors.js'
import {operationRequest, readAnswer, type CallArgs, type CallOutput} from './typed.js'

/** One way to reach the API: real HTTP (remote) or the in-process app (embedded). */
export interface Backend {
  readonly kind: 'remote' | 'embedded'
  /** Human description of the target: `remote: http://host as alice`, `local: ./.svc as admin`. */
  readonly description: string
  /** Base URL used to build absolute links (the server URL, or a placeholder origin when embedded). */
  readonly baseUrl: string
  /** fetch-like: `path` is absolute from the server root (`/svc/prompts.json?x=1`). */
  fetch(path: string, init?: RequestInit): Promise<Response>
  close(): Promise<void>
}

export interface CallOptions {
  query?: Record<string, string | number | boolean | undefined | (string | number)[]>
  body?: unknown
  headers?: Record<string, string>
}

/** Builds `path?query` with repeated keys for arrays. */
export function withQuery(path: string, query?: CallOptions['query']): string {
  if (!query) return path
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v))
    else params.append(key, String(value))
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

/** Typed calls over a Backend: JSON in, JSON (or text) out, errors as SvcError. */
export class Client {
  /** `onWarning` gets each `X-Svc-Warning` the server answers (a write it accepted but would tell about). */
  constructor(readonly backend: Backend, readonly onWarning?: (warning: string) => void) {}

  async raw(method: string, path: string, options: CallOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {accept: 'application/json', ...options.headers}
    let body: string | undefined
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(options.body)
    }
    let res: Response
    try {
      res = await this.backend.fetch(withQuery(path, options.query), {method, headers, body})
    } catch (error) {
      throw new SvcError('network', 0, `cannot reach ${this.backend.baseUrl}: ${(error as Error).message}`, undefined,
        'check --url, or start a server with `svc serve`')
    }
    if (!res.ok) throw await errorFromResponse(res)
    const warning = res.headers.get('x-svc-warning')
    if (warning) this.onWarning?.(warning)
    return res
  }

  async json<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    const res = await this.raw(method, path, options)
    if (res.status === 204) return undefined as T
    return (await res.json()) as T
  }

  async text(method: string, path: string, options: CallOptions = {}): Promise<string> {
    return (await this.raw(method, path, options)).text()
  }

  /** A typed call by operation id (src/core/contract/operations.ts): `call('getPrompt', {params: {id}})`. */
  async call<K extends OperationId>(op: K, ...[input]: CallArgs<K>): Promise<CallOutput<K>> {
    const {method, path, options} = operationRequest(op, input as Parameters<typeof operationRequest>[1])
    return (await readAnswer(await this.raw(method, path, options))) as CallOutput<K>
  }

  get = <T>(path: string, options?: CallOptions) => this.json<T>('GET', path, options)
  post = <T>(path: string, body?: unknown, options?: CallOptions) => this.json<T>('POST', path, {...options, body})
  patch = <T>(path: string, body?: unknown, options?: CallOptions) => this.json<T>('PATCH', path, {...options, body})
  delete = (path: string, options?: CallOptions) => this.json<void>('DELETE', path, options)
}
