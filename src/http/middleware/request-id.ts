import type {MiddlewareHandler} from 'hono'
import {requestId} from 'hono/request-id'
import type {AppEnv} from '../env.js'

export const REQUEST_ID_HEADER = 'X-Request-Id'

/**
 * An `X-Request-Id` on every answer: the caller's own (or its proxy's) when it is sane — at most 128
 * word characters, `-` or `=` (hono's check) — else a new UUID. Handlers and the logs read it as
 * `c.get('requestId')`. Error bodies stay as the spec shapes them: the id is a header only.
 */
export function requestIds(): MiddlewareHandler<AppEnv> {
  const assign = requestId({limitLength: 128, headerName: REQUEST_ID_HEADER})
  return async (c, next) => {
    await assign(c, next)
    // An answer made without c's helpers (a Response returned as is) did not get the prepared header.
    if (!c.res.headers.has(REQUEST_ID_HEADER)) {
      try {
        c.res.headers.set(REQUEST_ID_HEADER, c.get('requestId'))
      } catch {
        c.res = new Response(c.res.body, c.res)
        c.res.headers.set(REQUEST_ID_HEADER, c.get('requestId'))
      }
    }
  }
}
