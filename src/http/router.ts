/**
 * How a route of the contract (src/core/contract/routes.ts) becomes a Hono handler: the body and
 * query validators that run before the handler (their errors mapped once, `validationError`), and the router
 * every area builds on. Flow of a request: route match → area middleware (who, the resource) →
 * query and body parsed by the route's schemas (errors through `validationError`) → handler with
 * typed input → JSON answer (`application/json; charset=utf-8`).
 */
import {OpenAPIHono, type RouteConfig, type z} from '@hono/zod-openapi'
import {svcMessage} from '../core/contract/messages.js'
import type {Context, MiddlewareHandler} from 'hono'
import {badRequest, FieldErrorBag, validation, type SvcError} from '../core/errors.js'
import {textProblem, unstorableText} from '../core/text.js'
import type {AppEnv} from './env.js'
import {jsonObject} from './middleware/body.js'

type Target = 'query' | 'json' | 'param' | 'header' | 'cookie' | 'form'
type Issue = z.core.$ZodIssue

/** `records[0].name` from an issue path. */
function fieldName(path: readonly PropertyKey[]): string {
  let out = ''
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? String(part) : `.${String(part)}`
  return out
}

/** The member of a body that wraps the resource (`prompt` of `{prompt: {...}}`), if the body is such an envelope. */
function envelopeKey(schema: z.ZodType | undefined): string | undefined {
  const def = (schema as unknown as {_zod?: {def: {type: string; shape?: Record<string, z.ZodType>}}} | undefined)?._zod?.def
  if (def?.type !== 'object' || !def.shape) return undefined
  const keys = Object.keys(def.shape)
  if (keys.length !== 1) return undefined
  let inner = def.shape[keys[0]!] as unknown as {_zod: {def: {type: string; innerType?: unknown}}}
  while (['optional', 'nullable', 'default', 'prefault'].includes(inner._zod.def.type)) inner = inner._zod.def.innerType as typeof inner
  return inner._zod.def.type === 'object' ? keys[0] : undefined
}

const KIND_OF_MEMBER: Record<string, string> = {object: 'an object', record: 'an object', array: 'an array'}

/**
 * THE hook: a schema failure as the SvcError of today's shapes (decisions.md), with the wording of
 * core/contract/messages.ts. A query value: 400 `{error}` (`kind must be chat or agent`). A body
 * that is not what it must be at its top (`"prompt" must be an object`, `"records" must be an
 * array`, `at most 1000 records per request`): 400. A field: a 422 field map with every field's
 * messages, named inside the envelope (`{prompt: {name}}` → `name`, `records[0].data`).
 */
export function validationError(target: Target, issues: readonly Issue[], body?: z.ZodType): SvcError {
  const first = issues[0]
  if (target !== 'json' && target !== 'form') {
    const name = first ? fieldName(first.path) : target
    const message = first?.message ?? 'is invalid'
    return badRequest(message.startsWith(name) ? message : `${name} ${message}`)
  }
  const wrapper = envelopeKey(body)
  const top = issues.find((i) => i.path.length === 0 || (i.path.length === 1 && isMemberKind(i)))
  if (top) {
    const key = top.path[0]
    if (key === undefined) return badRequest(top.message)
    const kind = (top as {expected?: string}).expected
    return badRequest(top.code === 'invalid_type' && kind && KIND_OF_MEMBER[kind] ? `"${String(key)}" must be ${KIND_OF_MEMBER[kind]}` : top.message)
  }
  // A bag without a prototype: a member named `constructor` or `toString` is a field like any other.
  const bag = new FieldErrorBag()
  for (const issue of issues) {
    const path = wrapper !== undefined && issue.path[0] === wrapper ? issue.path.slice(1) : issue.path
    bag.add(fieldName(path) || 'body', issue.message)
  }
  return validation(bag.fields)
}

/** A top-level member that is not of its kind (an envelope that is not an object, a list over its bound). */
function isMemberKind(issue: Issue): boolean {
  if (issue.code === 'invalid_type') return ['object', 'record', 'array'].includes((issue as {expected?: string}).expected ?? '') && issue.input !== undefined
  return issue.code === 'too_big' && (issue as {origin?: string}).origin === 'array'
}

/** A router of one area (its routes validate in `handle`, never through OpenAPIHono's own `openapi()`). */
export const createRouter = <E extends AppEnv = AppEnv>() => new OpenAPIHono<E>()

type Json<R> = R extends {request: {body: {content: {'application/json': {schema: infer S extends z.ZodType}}}}} ? z.output<S> : undefined
type Query<R> = R extends {request: {query: infer Q extends z.ZodType}} ? z.output<Q> : Record<string, never>

export interface Input<R> {
  query: Query<R>
  body: Json<R>
}

const fieldQueries = new WeakSet<RouteConfig>()

/**
 * Routes whose bad query values answer a 422 field map (`{"context": ["is not included in the
 * list (...)"]}`) rather than the 400 `{error}` of other queries: the dashboards' `context`/`key`
 * and the account's `set_field` parameters, as they always have. Called once where the area is built.
 */
export function queryErrorsAsFields(...routes: RouteConfig[]): void {
  for (const route of routes) fieldQueries.add(route)
}

/** Query values that are not empty (`?kind=` means no kind, as it always has). */
const presentValues = (q: Record<string, string>) => Object.fromEntries(Object.entries(q).filter(([, v]) => v !== ''))

/** Hono's path of an OpenAPI template: `{id}` → `:id`, `{id}.json` → `:id{[^/]+\.json}` (the loader strips the suffix). */
export function honoPath(template: string): string {
  return template.replace(/\{([^}]+)\}(?:\.(json|md)(?=$|\/))?/g, (_, name: string, ext?: string) =>
    ext ? `:${name}{[^/]+\\.${ext}}` : `:${name}`)
}

/** A path parameter without the `.json`/`.md` suffix the path template puts after it. */
export const param = (c: Context, name: string): string => (c.req.param(name) ?? '').replace(/\.(json|md)$/, '')

function schemaOf(route: RouteConfig): {query?: z.ZodType; body?: z.ZodType} {
  const body = (route.request?.body?.content as Record<string, {schema?: unknown}> | undefined)?.['application/json']?.schema
  return {query: route.request?.query as z.ZodType | undefined, body: body && typeof body === 'object' && '_zod' in body ? (body as z.ZodType) : undefined}
}

/**
 * Serves `route` on `app` (the document is made from the contract itself: src/http/openapi.ts):
 * mounts `middleware` (the area's loaders), then the validation of its query and JSON body by the
 * route's own schemas (every field: types, lengths, choices, with the messages of
 * core/contract/messages.ts), then `handler` with the typed input. What only code can say (a
 * field required on create but not on PATCH is the route's own schema; a scope against the user's
 * teams, Liquid, a record against its db's schema) runs in the handler through core and answers
 * the same 422 field map.
 * Bodies are read as JSON whatever the Content-Type (apps' pages post with text/plain), with the
 * 400s of middleware/body.ts for malformed JSON or a non-object.
 */
export function handle<R extends RouteConfig, E extends AppEnv = AppEnv>(
  app: OpenAPIHono<E>,
  route: R,
  ...chain: [...MiddlewareHandler<E>[], (c: Context<E>, input: Input<R>) => Response | Promise<Response>]
): void {
  const handler = chain.pop() as (c: Context<E>, input: Input<R>) => Response | Promise<Response>
  const middleware = chain as MiddlewareHandler<E>[]
  const {query, body} = schemaOf(route)
  app.on([route.method.toUpperCase()], [honoPath(route.path)], ...middleware, async (c: Context<E>) => {
    const input = {query: {}, body: undefined} as Input<R>
    refuseUnstorableQuery(c)
    if (query) {
      const parsed = await query.safeParseAsync(presentValues(c.req.query()), {error: svcMessage})
      if (!parsed.success) throw validationError(fieldQueries.has(route) ? 'form' : 'query', parsed.error.issues)
      input.query = parsed.data as Query<R>
    }
    if (body) {
      // reportInput: the hook tells an envelope sent as a non-object (400) from one left out (its members are blank).
      const raw = await jsonObject(c)
      refuseUnstorableBody(raw, body)
      const parsed = await body.safeParseAsync(raw, {error: svcMessage, reportInput: true})
      if (!parsed.success) throw validationError('json', parsed.error.issues, body)
      input.body = parsed.data as Json<R>
    }
    return handler(c, input)
  })
}

/**
 * Query parameters whose value names something the handler looks up among known names (a db's
 * tables): a value no name can match — one holding a NUL character included — is the handler's
 * "unknown" answer (platform-api.md: 400 with `available_tables`), decided before the character
 * rules of the stores. It never reaches a store: only a known name goes on.
 */
const LOOKED_UP_NAMES = new Set(['table_name'])

/** A query parameter (name or value) that is not storable text (src/core/text.ts): 422 naming it. */
function refuseUnstorableQuery(c: Context): void {
  for (const [name, values] of Object.entries(c.req.queries())) {
    const problem = textProblem(name) ?? (LOOKED_UP_NAMES.has(name) ? undefined : values.map(textProblem).find(Boolean))
    if (problem) throw validation({[textProblem(name) ? 'query' : name]: [textProblem(name) ? `has a parameter name that ${problem}` : problem]})
  }
}

/** A member of a JSON body (key or value) that is not storable text: 422 naming the field as the schema's errors do (`data.name`). */
function refuseUnstorableBody(raw: unknown, schema: z.ZodType): void {
  const found = unstorableText(raw)
  if (!found) return
  const wrapper = envelopeKey(schema)
  const path = wrapper !== undefined && found.path[0] === wrapper ? found.path.slice(1) : found.path
  throw validation({[fieldName(path) || 'body']: [found.key ? `has a key that ${found.problem}` : found.problem]})
}

/** Registers routes in `app`'s document (src/http/openapi.ts makes the document of the contract with it). */
export function describe<E extends AppEnv>(app: OpenAPIHono<E>, ...routes: RouteConfig[]): void {
  for (const route of routes) app.openAPIRegistry.registerPath(route)
}

/** A typed place in the context for the resource an area's middleware loads once (`loaded.get(c)` in handlers). */
export function slot<T>(name: string) {
  return {
    set: (c: Context, value: T) => c.set(name as never, value as never),
    get: (c: Context): T => {
      const value = c.get(name as never) as T | undefined
      if (value === undefined) throw new Error(`${name} not loaded: the route lacks its middleware`)
      return value
    },
  }
}
