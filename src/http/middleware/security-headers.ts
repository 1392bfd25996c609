/**
 * Response headers every answer carries: `nosniff`, no framing by other sites, and a
 * Content-Security-Policy — strict for the API and the console, and for app pages one that lets the
 * app run its compiled scripts (inline and eval included: apps are other people's code) while it
 * can only talk to its own origin. docs/security.md "Headers".
 */
import type {MiddlewareHandler} from 'hono'
import type {AppEnv} from '../env.js'

/** JSON, files and anything that is not a page: nothing may run or be framed. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'"

/** The console and the server's own HTML pages (login, not found). `appOrigins`: where apps live (dashboard
 *  tiles frame them; the sign-in form's redirect may end on one, which `form-action` also governs). */
export const consoleCsp = (appOrigins: string) =>
  `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; ` +
  `frame-src 'self' ${appOrigins}; frame-ancestors 'none'; base-uri 'none'; form-action 'self' ${appOrigins}; object-src 'none'`

/** An app page on its own origin; `frameAncestors`: the main origin (dashboard tiles frame apps). */
export const appCsp = (frameAncestors: string) =>
  `default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:; style-src 'self' 'unsafe-inline'; ` +
  `img-src 'self' data: blob: https:; font-src 'self' data:; media-src 'self' data: blob:; worker-src 'self' blob:; ` +
  `connect-src 'self'; frame-ancestors ${frameAncestors}; base-uri 'self'; form-action 'self'; object-src 'none'`

/**
 * Sets `nosniff`, `Referrer-Policy` and a CSP by content type unless the route chose one; and, as
 * `nosniff` makes the declared type count, the charset of every JSON answer (Hono's c.json says
 * only `application/json`).
 */
export function securityHeaders(pageCsp: () => string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next()
    const headers = c.res.headers
    const type = headers.get('content-type')
    if (type === 'application/json') headers.set('content-type', 'application/json; charset=utf-8')
    headers.set('X-Content-Type-Options', 'nosniff')
    if (!headers.has('Referrer-Policy')) headers.set('Referrer-Policy', 'same-origin')
    if (!headers.has('Content-Security-Policy')) {
      const html = (type ?? '').startsWith('text/html')
      headers.set('Content-Security-Policy', html ? pageCsp() : API_CSP)
      headers.set('X-Frame-Options', 'DENY')
    }
  }
}
