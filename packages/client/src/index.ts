/**
 * svc-api-client: the typed client of the svc API, alone (no server, no zod, no dependencies).
 *
 *   import {createClient} from 'svc-api-client'
 *   const svc = createClient({url: 'http://127.0.0.1:4000', token: process.env.SVC_TOKEN})
 *   const prompts = await svc.listPrompts({query: {kind: 'agent'}})
 *   const page = await svc.searchRecords({params: {db_id: 7}, query: {q: 'ann', limit: 5, filter: {city: 'Berlin'}}})
 *
 * One method per operation of the server's OpenAPI document (its operationId), typed from that
 * document (openapi-typescript, at build time: `paths`, `components` and `operations` are exported
 * for openapi-fetch users too). Errors are thrown as SvcError (`status`, `message`, and for a 422
 * the field map in `details`). The runtime is the svc CLI's own (src/client/wire.ts).
 */
import {OPERATIONS} from '../../../src/core/contract/operations.js'
import {errorFromResponse, operationRequest, readAnswer, requestInit, withQuery, type CallOptions} from '../../../src/client/wire.js'
import {SvcError} from '../../../src/core/errors.js'
import type {operations} from './generated/openapi.js'

export {SvcError, isSvcError, type ErrorCode, type FieldErrors} from '../../../src/core/errors.js'
export type {CallOptions} from '../../../src/client/wire.js'
export type {components, operations, paths} from './generated/openapi.js'

/** The operation ids of the API (`getPrompt`, `searchRecords`, …). */
export type OperationId = keyof operations & keyof typeof OPERATIONS

type Op<K extends OperationId> = operations[K]
type Params<K extends OperationId> = Op<K> extends {parameters: {path: infer P}} ? P : never
type Query<K extends OperationId> = Op<K> extends {parameters: {query?: infer Q}} ? Q : never
type Body<K extends OperationId> = Op<K> extends {requestBody?: {content: {'application/json': infer B}}} ? B : never

/** Path values may be given as numbers (`{db_id: 7}`). */
type PathValues<P> = {[N in keyof P]: P[N] | (P[N] extends string ? number : never)}

/** What a call of operation K takes: path params (required when the path has some), query, body, extra headers. */
export type CallInput<K extends OperationId> =
  ([Params<K>] extends [never] ? unknown : {params: PathValues<Params<K>>})
  & ([Query<K>] extends [never] ? unknown : [undefined] extends [Query<K>] ? {query?: Query<K>} : {query: Query<K>})
  & ([Body<K>] extends [never] ? unknown : Op<K> extends {requestBody: object} ? {body: Body<K>} : {body?: Body<K>})
  & {headers?: Record<string, string>}

type Success<R> = R extends {200: infer A} ? A : R extends {201: infer B} ? B : R extends {204: unknown} ? {none: true} : never

/** What a call of operation K answers: the JSON of its success answer, text for Markdown or HTML, undefined for 204. */
export type CallOutput<K extends OperationId> = Success<Op<K>['responses']> extends infer S
  ? S extends {none: true} ? undefined
    : S extends {content: {'application/json': infer J}} ? J
      : S extends {content: object} ? string : unknown
  : never

type Needs<K extends OperationId> = [Params<K>] extends [never] ? (Op<K> extends {requestBody: object} ? true : false) : true
export type CallArgs<K extends OperationId> = Needs<K> extends true ? [input: CallInput<K>] : [input?: CallInput<K>]

export interface ClientOptions {
  /** Server URL, e.g. `http://127.0.0.1:4000`. */
  url: string
  /** API token (sent as `Authorization: Bearer`). */
  token?: string
  /** A fetch to use instead of the global one (a test double, a proxy agent). */
  fetch?: typeof globalThis.fetch
}

/** `svc.getPrompt({params: {id}})`, ..., `svc.call(operationId, input)` and `svc.raw(method, path)`. */
export type SvcClient = {
  [K in OperationId]: (...args: CallArgs<K>) => Promise<CallOutput<K>>
} & {
  call<K extends OperationId>(op: K, ...args: CallArgs<K>): Promise<CallOutput<K>>
  /** The untyped escape hatch: `raw('GET', '/svc/me.json')` answers the Response (errors thrown as SvcError). */
  raw(method: string, path: string, options?: CallOptions): Promise<Response>
}

export function createClient(options: ClientOptions): SvcClient {
  if (!options || typeof options.url !== 'string' || !options.url) throw new TypeError('createClient needs {url} (and a token for private routes)')
  const base = options.url.replace(/\/+$/, '')
  const fetchFn = options.fetch ?? globalThis.fetch
  const raw = async (method: string, path: string, call: CallOptions = {}): Promise<Response> => {
    const init = requestInit(method, call)
    const headers = new Headers(init.headers)
    if (options.token) headers.set('authorization', `Bearer ${options.token}`)
    let res: Response
    try {
      res = await fetchFn(base + withQuery(path, call.query), {...init, headers})
    } catch (error) {
      throw new SvcError('network', 0, `cannot reach ${base}: ${(error as Error).message}`)
    }
    if (!res.ok) throw await errorFromResponse(res)
    return res
  }
  const call = async (op: OperationId, input?: Parameters<typeof operationRequest>[1]) => {
    const {method, path, options: callOptions} = operationRequest(op, input)
    return readAnswer(await raw(method, path, callOptions))
  }
  const api: Record<string, unknown> = {call, raw}
  for (const op of Object.keys(OPERATIONS)) api[op] = (input?: Parameters<typeof operationRequest>[1]) => call(op as OperationId, input)
  return api as SvcClient
}
