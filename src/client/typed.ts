/**
 * Typed calls by operation id: `client.call('getPrompt', {params: {id}})` answers a `PromptView`.
 * The types come from the route definitions of the contract (src/core/contract/routes.ts) through
 * `import type` only, and the method and path from the zod-free operations table: calling the API
 * this way never loads zod (the CLI starts as fast as before).
 */
import type {z} from '@hono/zod-openapi'
import type {OperationId} from '../core/contract/operations.js'
import type {Routes} from '../core/contract/routes.js'

type Schema = z.ZodType
type Route<K extends OperationId> = Routes[K]

type ParamsOf<R> = R extends {request: {params: infer P extends Schema}} ? {params: {[N in keyof z.input<P>]: string | number}} : unknown
/**
 * What a caller may send: the schema's shape, with enums widened to string and maps to unknown
 * values. The server checks the values (and answers its 422 or 400), so a CLI can pass on what a
 * user typed without checking it twice.
 */
type Loose<T> = T extends string ? string
  : T extends readonly (infer E)[] ? Loose<E>[]
    : T extends object ? (string extends keyof T ? Record<string, unknown> : {[K in keyof T]: Loose<T[K]>})
      : T
type QueryOf<R> = R extends {request: {query: infer Q extends Schema}} ? {query?: {[N in keyof z.input<Q>]?: string | number | boolean}} : unknown
type BodyOf<R> = R extends {request: {body: {content: {'application/json': {schema: infer S extends Schema}}}}} ? {body?: Loose<z.input<S>>} : unknown

/** What a call of operation K takes: path params (required when the path has some), query, body, extra headers. */
export type CallInput<K extends OperationId> = ParamsOf<Route<K>> & QueryOf<Route<K>> & BodyOf<Route<K>> & {headers?: Record<string, string>}

type Success<R> = R extends {responses: infer Rs}
  ? Rs extends {200: infer A} ? A : Rs extends {201: infer B} ? B : Rs extends {204: unknown} ? {none: true} : never
  : never

/** What a call of operation K answers: the parsed JSON of its 2xx schema, text for Markdown/HTML, undefined for 204. */
export type CallOutput<K extends OperationId> = Success<Route<K>> extends infer S
  ? S extends {none: true} ? undefined
    : S extends {content: {'application/json': {schema: infer J extends Schema}}} ? z.output<J>
      : S extends {content: object} ? string : unknown
  : never

type NeedsInput<K extends OperationId> = Route<K> extends {request: {params: Schema}} ? true : false
export type CallArgs<K extends OperationId> = NeedsInput<K> extends true ? [input: CallInput<K>] : [input?: CallInput<K>]

export {operationRequest, readAnswer} from './wire.js'
