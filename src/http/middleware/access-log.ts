import type {MiddlewareHandler} from 'hono'

/** One line per request: method, path (never the query string, never headers), status, time. */
export function accessLog(log: (line: string) => void): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now()
    await next()
    const path = new URL(c.req.url).pathname
    log(`${c.req.method} ${path} ${c.res.status} ${(performance.now() - start).toFixed(1)}ms`)
  }
}
