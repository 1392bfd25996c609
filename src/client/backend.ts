import type {OperationId} from '../core/contract/operations.js'
import {SvcError} from '../core/errors.js'
import type {CallArgs, CallOutput} from './typed.js'
import {errorFromResponse, operationRequest, readAnswer, requestInit, withQuery, type CallOptions} from './wire.js'

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

export {withQuery, errorFromResponse, type CallOptions} from './wire.js'

/** Typed calls over a Backend: JSON in, JSON (or text) out, errors as SvcError. */
export class Client {
  /** `onWarning` gets each `X-Svc-Warning` the server answers (a write it accepted but would tell about). */
  constructor(readonly backend: Backend, readonly onWarning?: (warning: string) => void) {}

  async raw(method: string, path: string, options: CallOptions = {}): Promise<Response> {
    let res: Response
    try {
      res = await this.backend.fetch(withQuery(path, options.query), requestInit(method, options))
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
