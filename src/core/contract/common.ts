/** Shapes shared by every area: the error bodies of decisions.md and response helpers. */
import {z} from '@hono/zod-openapi'

export {z}

/** `{"error": "<text>"}`: any 4xx that is the caller's fault but not a validation (some carry extra members). */
export const ErrorBody = z.looseObject({error: z.string()}).openapi('Error', {
  description: 'An error that is not a validation: 400 bad input, 401, 403, 404, 413, 429, 5xx. Extra members may explain (e.g. `available_tables`).',
  example: {error: 'not found'},
})

/** The 422 body of every resource: field name → messages. */
export const FieldErrors = z.record(z.string(), z.array(z.string())).openapi('FieldErrors', {
  description: 'A validation failure: each field name maps to its messages.',
  example: {name: ["can't be blank"], code: ['has already been taken']},
})

/** The 422 of public methods: `{error, fields}`. */
export const PublicFieldErrors = z.object({error: z.string(), fields: FieldErrors}).openapi('PublicFieldErrors')

export const JsonObject = z.record(z.string(), z.unknown())
export const Timestamp = z.string().openapi({description: 'ISO 8601 date-time (UTC)', example: '2026-01-31T12:00:00.000Z'})
export const Uuid = z.string().openapi({format: 'uuid', example: '0b5f6a3c-8d9e-4f10-9a2b-3c4d5e6f7a8b'})

export const JSON_TYPE = 'application/json'
export const MARKDOWN_TYPE = 'text/markdown'
export const HTML_TYPE = 'text/html'

export const json = <S extends z.ZodType>(schema: S, description: string) =>
  ({description, content: {[JSON_TYPE]: {schema}}}) as {description: string; content: {'application/json': {schema: S}}}
export const markdown = (description: string) => ({description, content: {[MARKDOWN_TYPE]: {schema: z.string()}}})
export const html = (description: string) => ({description, content: {[HTML_TYPE]: {schema: z.string()}}})
export const noContent = {description: 'Deleted: no body'} as const
export const redirect = (description: string) => ({description, headers: {Location: {schema: {type: 'string' as const}}}})

const error = (description: string) => json(ErrorBody, description)

/** Error answers every route may give (the status codes of decisions.md). */
export const ERRORS = {
  400: error('Bad request: malformed JSON, a body that is not an object, a bad query value'),
  401: {...error('Missing or invalid token (header `WWW-Authenticate: Bearer`)')},
  403: error('Not allowed: a missing permission, or a cross-site or navigation write carried by a cookie'),
  404: error('Unknown route, or a resource that does not exist, belongs to another account or is hidden'),
  413: error('Request body too large'),
  429: error('Too many requests'),
  422: json(FieldErrors, 'Validation failed: field name → messages (on every route: a query parameter holding a NUL character, src/core/text.ts)'),
  431: error('Request headers too large (answered by the HTTP server before any route)'),
  500: error('Internal error (never a stack trace)'),
  503: error('Storage unavailable; nothing was written (`Retry-After`)'),
  507: error('Storage full; nothing was written'),
} as const

/** The error answers with the 422 (field map) of routes that validate a body or query. */
export const WRITE_ERRORS = {...ERRORS, 422: json(FieldErrors, 'Validation failed: field name → messages (a NUL character or a lone surrogate in any text too)')} as const

/** Security requirement of private routes: a bearer token, or the session cookie of the browser pages. */
export const PRIVATE: Record<string, string[]>[] = [{bearer: []}, {session: []}]
/** Public routes (no login needed; a signed-in caller may still be recognised). */
export const PUBLIC: Record<string, string[]>[] = [{}, {bearer: []}, {session: []}]

/**
 * The `{key: {...}}` body of a write (`{prompt: {...}}`). An absent envelope is an empty one, so its
 * missing members are named (`name: can't be blank`); one that is not an object is the 400
 * `"prompt" must be an object` (src/http/router.ts).
 */
export const envelope = <K extends string, S extends z.ZodType>(key: K, schema: S) =>
  z.object({[key]: schema.prefault({} as never)} as {[P in K]: z.ZodPrefault<S>}, {error: `"${key}" must be an object`})

export type ErrorBody = z.infer<typeof ErrorBody>
export type FieldErrors = z.infer<typeof FieldErrors>
