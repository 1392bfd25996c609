/**
 * How a route of the contract (src/core/contract/routes.ts) becomes a Hono handler: the one
 * validation hook, the body and query validators that run before the handler, and the router
 * every area builds on. Flow of a request: route match → area middleware (who, the resource) →
 * query and body parsed by the route's schemas (errors through `validationHook`) → handler with
 * typed input → JSON answer (`application/json; charset=utf-8`).
 */
import {OpenAPIHono, z as zod, type RouteConfig, type z} from '@hono/zod-openapi'
import type {Context, MiddlewareHandler} from 'hono'
import {badRequest, validation, type FieldErrors, type SvcError} from '../core/errors.js'
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

/**
 * THE hook: a schema failure as the SvcError of today's shapes (decisions.md). A query value:
 * 400 `{error}` (the schema's message is the sentence). A body: the member of the body itself
 * (`"prompt" must be an object`, `"records" must be an array`) is a 400 too; anything deeper is
 * a 422 field map, named without the envelope (`{prompt: {name}}` → `name`).
 */
export function validationError(target: Target, issues: readonly Issue[]): SvcError {
  const first = issues[0]
  if (target !== 'json' && target !== 'form') {
    const name = first ? fieldName(first.path) : target
    const message = first?.message ?? 'is invalid'
    return badRequest(message.startsWith(name) ? message : `${name} ${message}`)
  }
  const shallow = issues.find((i) => i.path.length <= 1)
  if (shallow) return badRequest(shallow.message)
  const fields: FieldErrors = {}
  for (const issue of issues) (fields[fieldName(issue.path.slice(1))] ??= []).push(issue.message)
  return validation(fields)
}

/** The defaultHook of every OpenAPIHono router: a failed validation throws the mapped SvcError (onError answers it). */
export const validationHook = (result: {target: Target; success: boolean; error?: z.ZodError}) => {
  if (!result.success && result.error) throw validationError(result.target, result.error.issues)
}

/** A router of one area. */
export const createRouter = <E extends AppEnv = AppEnv>() => new OpenAPIHono<E>({defaultHook: validationHook as never})

type Json<R> = R extends {request: {body: {content: {'application/json': {schema: infer S extends z.ZodType}}}}} ? z.output<S> : undefined
type Query<R> = R extends {request: {query: infer Q extends z.ZodType}} ? z.output<Q> : Record<string, never>

export interface Input<R> {
  query: Query<R>
  body: Json<R>
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
 * Serves `route` on `app`: registers it in the document and mounts `middleware` (the area's
 * loaders) then the validators of its query and JSON body, then `handler` with the typed input.
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
  app.openAPIRegistry.registerPath(route)
  app.on([route.method.toUpperCase()], [honoPath(route.path)], ...middleware, async (c: Context<E>) => {
    const input = {query: {}, body: undefined} as Input<R>
    if (query) {
      const parsed = query.safeParse(presentValues(c.req.query()))
      if (!parsed.success) throw validationError('query', parsed.error.issues)
      input.query = parsed.data as Query<R>
    }
    if (body) {
      const parsed = structural(body).safeParse(await jsonObject(c))
      if (!parsed.success) throw validationError('json', parsed.error.issues)
      input.body = parsed.data as Json<R>
    }
    return handler(c, input)
  })
}

const structures = new WeakMap<z.ZodType, z.ZodType>()

/**
 * What the middleware checks of a body before the handler: its members' kinds (an envelope such
 * as `prompt` is an object, `records` an array within its bound), with today's 400 messages. The
 * fields inside are checked by the area's rules in core (required on create but not on PATCH,
 * lengths, a scope against the user's teams, a record against its db's own schema, Liquid...), which
 * answer one 422 with every field's messages; the schema describes them for the document and the client.
 */
function structural(schema: z.ZodType): z.ZodType {
  let out = structures.get(schema)
  if (out) return out
  out = schema
  const def = (schema as unknown as {_zod: {def: {type: string; shape?: Record<string, z.ZodType>}}})._zod.def
  if (def.type === 'object' && def.shape) {
    const shape: Record<string, z.ZodType> = {}
    for (const [key, member] of Object.entries(def.shape)) {
      const optional = member.safeParse(undefined).success
      let inner = member as unknown as {_zod: {def: {type: string; innerType?: unknown}; bag: {maximum?: number}}}
      while (inner._zod.def.type === 'optional' || inner._zod.def.type === 'nullable') inner = inner._zod.def.innerType as typeof inner
      let check: z.ZodType
      if (inner._zod.def.type === 'object' || inner._zod.def.type === 'record') check = zod.looseObject({}, {error: `"${key}" must be an object`})
      else if (inner._zod.def.type === 'array') {
        const max = inner._zod.bag.maximum
        const array = zod.array(zod.unknown(), {error: `"${key}" must be an array`})
        check = max === undefined ? array : array.max(max, `at most ${max} ${key} per request`)
      } else check = zod.unknown()
      shape[key] = optional ? check.optional() : check
    }
    out = zod.looseObject(shape)
  }
  structures.set(schema, out)
  return out
}

/** Registers a route served by a plain Hono handler elsewhere (pages, streamed answers) so the document has it. */
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
