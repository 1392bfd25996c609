import {createHash} from 'node:crypto'
import type {Context, MiddlewareHandler} from 'hono'
import {matchedRoutes} from 'hono/route'
import type {AppEnv} from '../env.js'

/** One line per request: method, path (never the query string, never headers), status, time. */
export function accessLog(log: (line: string) => void): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now()
    await next()
    const path = new URL(c.req.url).pathname
    log(`${c.req.method} ${path} ${c.res.status} ${(performance.now() - start).toFixed(1)}ms`)
  }
}

/**
 * The entry of `svc serve --log-format json`, one per request. Never a token, a cookie, a header or
 * a query string: the route is the pattern the request matched (`/svc/dbs/:id.json`), not its path.
 */
export interface RequestLogEntry {
  time: string
  request_id: string
  /** The account the request acted in: the caller's, or the account of the app or public db it reached. */
  account_id: number | null
  user_id: number | null
  user: string | null
  /** An anonymous visitor of a public method: a digest of its visitor cookie (never the cookie). */
  visitor: string | null
  method: string
  /** The matched route pattern, or null when no route matched (a 404 of an unknown path). */
  route: string | null
  status: number
  duration_ms: number
  /** Bytes of the answer's body as sent (over a socket); in process its Content-Length, if any. */
  bytes: number | null
}

/** A visitor's log name: the first 12 hex digits of the SHA-256 of its cookie key. */
export const visitorDigest = (cookieKey: string) => createHash('sha256').update(cookieKey).digest('hex').slice(0, 12)

/**
 * The route a request matched, as the OpenAPI document writes it (`/svc/prompts/{id}.json`): the
 * last matched handler that is not a middleware (`app.use`), its Hono path turned back into the
 * template (src/http/router.ts honoPath).
 */
function routeOf(c: Context): string | null {
  const routes = matchedRoutes(c).filter((r) => r.method !== 'ALL')
  if (!routes.length) return null
  return routes[routes.length - 1]!.path
    .replace(/:(\w+)\{\[\^\/\]\+\\\.(json|md)\}/g, '{$1}.$2')
    .replace(/:(\w+)(\{[^}]*\})?/g, '{$1}')
}

/** Counts the body bytes Node writes for this answer (headers not counted), streamed or not. */
function countBytes(outgoing: import('node:http').ServerResponse): () => number {
  let bytes = 0
  const size = (chunk: unknown, encoding?: unknown) => typeof chunk === 'string'
    ? Buffer.byteLength(chunk, typeof encoding === 'string' ? encoding as BufferEncoding : 'utf8')
    : (chunk as {byteLength?: number} | null)?.byteLength ?? 0
  const write = outgoing.write
  const end = outgoing.end
  outgoing.write = function (this: typeof outgoing, chunk: unknown, ...rest: unknown[]) {
    bytes += size(chunk, rest[0])
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest)
  } as typeof outgoing.write
  outgoing.end = function (this: typeof outgoing, chunk?: unknown, ...rest: unknown[]) {
    if (typeof chunk !== 'function') bytes += size(chunk, rest[0])
    return (end as (...args: unknown[]) => typeof outgoing).call(this, chunk, ...rest)
  } as typeof outgoing.end
  return () => bytes
}

/**
 * The JSON request log. Over a socket the entry is written when the answer is sent (its duration
 * is the whole answer's, its bytes the body Node wrote, streamed or not); in process at once.
 */
export function jsonAccessLog(write: (entry: RequestLogEntry) => void): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const time = new Date().toISOString()
    const start = performance.now()
    await next()
    const entry = (bytes: number | null): RequestLogEntry => {
      const user = c.get('user') ?? null
      return {
        time,
        request_id: c.get('requestId') ?? '',
        account_id: user?.accountId ?? c.get('hostedApp')?.account_id ?? c.get('logAccountId') ?? null,
        user_id: user?.id ?? null,
        user: user?.login ?? null,
        visitor: user ? null : c.get('logVisitor') ?? null,
        method: c.req.method,
        route: routeOf(c),
        status: c.res.status,
        duration_ms: Math.round((performance.now() - start) * 10) / 10,
        bytes,
      }
    }
    const outgoing = c.env?.outgoing
    if (outgoing && !outgoing.writableFinished) {
      const bytes = countBytes(outgoing)
      let done = false
      const finish = () => {
        if (done) return
        done = true
        write(entry(bytes()))
      }
      outgoing.once('finish', finish)
      outgoing.once('close', finish)
    } else {
      const declared = c.res.headers.get('content-length')
      write(entry(declared ? Number(declared) : c.res.body === null ? 0 : null))
    }
  }
}
