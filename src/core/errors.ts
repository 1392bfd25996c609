/** The one error type of svc: thrown by core and store, mapped once by http, read back by the client. */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'validation'
  | 'rate_limited'
  /** 507: the database has no space left (nothing was written). */
  | 'storage_full'
  /** 503: the database cannot be reached or asked for a retry (answered with Retry-After). */
  | 'unavailable'
  | 'usage'
  | 'network'
  | 'internal'

/** Field name → list of messages, the 422 body of every resource. */
export type FieldErrors = Record<string, string[]>

export class SvcError extends Error {
  readonly code: ErrorCode
  readonly status: number
  /** Extra members merged into the JSON error body (e.g. `available_tables`), or the field map of a 422. */
  readonly details?: Record<string, unknown>
  /** A hint for a human at a terminal ("try: svc login"). Never sent over HTTP. */
  readonly hint?: string
  /** Seconds after which a retry may succeed (a 429's `Retry-After` header). */
  retryAfter?: number

  constructor(code: ErrorCode, status: number, message: string, details?: Record<string, unknown>, hint?: string) {
    super(message)
    this.name = 'SvcError'
    this.code = code
    this.status = status
    this.details = details
    this.hint = hint
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new SvcError('bad_request', 400, message, details)
export const unauthorized = (message = 'unauthorized') => new SvcError('unauthorized', 401, message)
export const forbidden = (message = 'forbidden') => new SvcError('forbidden', 403, message)
export const notFound = (message = 'not found') => new SvcError('not_found', 404, message)
export const payloadTooLarge = (message = 'request body too large') => new SvcError('payload_too_large', 413, message)
export const rateLimited = (message = 'too many requests', retryAfterSeconds?: number) =>
  Object.assign(new SvcError('rate_limited', 429, message), {retryAfter: retryAfterSeconds})

/** A 422 with a field map: `validation({code: ['has already been taken']})`. */
export const validation = (fields: FieldErrors, message = 'validation failed') =>
  new SvcError('validation', 422, message, fields)

export const isSvcError = (e: unknown): e is SvcError => e instanceof SvcError

/** Collects field messages; `throwIfAny()` raises one 422 with all of them. */
export class FieldErrorBag {
  /** No prototype: a field named `__proto__`, `constructor` or `toString` is a key like any other. */
  readonly fields: FieldErrors = Object.create(null) as FieldErrors
  add(field: string, message: string): this {
    ;(this.fields[field] ??= []).push(message)
    return this
  }
  get empty(): boolean {
    return Object.keys(this.fields).length === 0
  }
  throwIfAny(): void {
    if (!this.empty) throw validation(this.fields)
  }
}
