import type {Context} from 'hono'
import {HTTPException} from 'hono/http-exception'
import type {ContentfulStatusCode} from 'hono/utils/http-status'
import {isSvcError, type SvcError} from '../../core/errors.js'

/** The JSON body of an error, as decisions.md shapes it: a 422 is the field map itself. */
export function errorBody(err: SvcError): Record<string, unknown> {
  if (err.code === 'validation') return err.details ?? {base: [err.message]}
  return {error: err.message, ...(err.details ?? {})}
}

/** The one place errors become HTTP answers. Never a stack trace in a body. */
export function onError(log?: (line: string, fields?: Record<string, string | number>) => void) {
  return (err: Error, c: Context) => {
    if (isSvcError(err)) {
      if (err.status === 401) c.header('WWW-Authenticate', 'Bearer')
      if (err.status === 503) c.header('Retry-After', '1')
      if (err.retryAfter !== undefined) c.header('Retry-After', String(err.retryAfter))
      if (err.status >= 500) log?.(`error ${c.req.method} ${new URL(c.req.url).pathname}: ${err.code}: ${(err.cause as Error | undefined)?.message ?? err.message}`, requestFields(c))
      return c.json(errorBody(err), err.status as ContentfulStatusCode)
    }
    if (err instanceof HTTPException) {
      const status = err.status
      if (status === 401) c.header('WWW-Authenticate', 'Bearer')
      const message = status === 413 ? 'request body too large' : err.message || 'request failed'
      return c.json({error: message}, status)
    }
    log?.(`error ${c.req.method} ${new URL(c.req.url).pathname}: ${err.stack ?? err.message}`, requestFields(c))
    return c.json({error: 'internal server error'}, 500)
  }
}

/** The request id of an error's log line. */
const requestFields = (c: Context): Record<string, string> => {
  const id = c.get('requestId') as string | undefined
  return id ? {request_id: id} : {}
}

export const notFoundHandler = (c: Context) => c.json({error: 'not found'}, 404)
