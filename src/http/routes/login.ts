/**
 * The console sign-in on the main origin: `GET|POST /svc/login` (token → HttpOnly session cookie)
 * and `POST /svc/logout`. A post must come from this origin (no login or logout CSRF), attempts are
 * rate-limited per client address, `next` is only ever a path of this origin, and the cookie is
 * `__Host-svc_session` (Secure, host-only) when the client came over https (directly or per a trusted proxy).
 */
import {Hono, type Context} from 'hono'
import {deleteCookie, getCookie, setCookie} from 'hono/cookie'
import {escapeHtml} from '../../core/apps/shell.js'
import {forbidden, rateLimited} from '../../core/errors.js'
import {safeNext} from '../app-origin/routes.js'
import {clientIp} from '../client-ip.js'
import type {AppEnv, Deps} from '../env.js'
import {sameOrigin, SESSION_COOKIE, sessionCookiePrefix} from '../middleware/auth.js'

export {safeNext}
export const LOGIN_PATH = '/svc/login'
/** Session lifetime: one month (platform-api.md "Limits": cookie lifetime). */
const SESSION_TTL = 30 * 24 * 3600
/** Sign-in attempts per client address: 10 at once, refilled at 10 a minute (shared by every instance, see ClusterRepo). */
export const LOGIN_RATE = {bucket: 'login', capacity: 10, perMinute: 10}

export const htmlPage = (title: string, body: string) =>
  `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" type="image/svg+xml" href="/favicon.ico">` +
  `<title>${escapeHtml(title)}</title><style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#222}` +
  `input{width:100%;padding:.5rem;margin:.5rem 0;box-sizing:border-box}button{padding:.5rem 1rem}.err{color:#b00}</style></head>` +
  `<body>${body}</body></html>\n`

function loginPage(next: string, error?: string) {
  return htmlPage('Sign in', `<h1>Sign in</h1>${error ? `<p class="err">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${LOGIN_PATH}">
<label for="token">API token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<input type="hidden" name="next" value="${escapeHtml(next)}">
<button type="submit">Sign in</button>
</form>`)
}

/** A browser post from another origin (or site) is refused; clients that send no Origin are not browsers. */
function requireSameOrigin(c: Context<AppEnv>) {
  const site = c.req.header('sec-fetch-site')
  const origin = c.req.header('origin') ?? c.req.header('referer')
  if ((site !== undefined || origin !== undefined) && !sameOrigin(c)) throw forbidden('cross-origin request refused')
}

export function loginRoutes(deps: Deps) {
  const app = new Hono<AppEnv>()

  app.get(LOGIN_PATH, (c) => {
    c.header('Cache-Control', 'no-store')
    return c.html(loginPage(safeNext(c.req.query('next'))))
  })

  app.post(LOGIN_PATH, async (c) => {
    c.header('Cache-Control', 'no-store')
    requireSameOrigin(c)
    const wait = await deps.store.cluster.takeToken(LOGIN_RATE.bucket, clientIp(c, deps), LOGIN_RATE.capacity, LOGIN_RATE.perMinute)
    if (wait > 0) {
      c.header('Retry-After', String(wait))
      throw rateLimited(`too many sign-in attempts; retry in ${wait} s`)
    }
    const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>))
    const token = typeof form.token === 'string' ? form.token.trim() : ''
    const next = safeNext(typeof form.next === 'string' ? form.next : undefined)
    const user = token ? await deps.store.accounts.authenticate(token) : null
    if (!user) return c.html(loginPage(next, 'That token is not valid.'), 401)
    const session = await deps.store.accounts.createToken(user.id, 'session', SESSION_TTL)
    const prefix = sessionCookiePrefix(c, deps)
    setCookie(c, SESSION_COOKIE, session, {httpOnly: true, sameSite: 'Lax', path: '/', maxAge: SESSION_TTL, secure: prefix === 'host', prefix})
    return c.redirect(next, 303)
  })

  app.post('/svc/logout', async (c) => {
    requireSameOrigin(c)
    const prefix = sessionCookiePrefix(c, deps)
    const session = getCookie(c, SESSION_COOKIE, prefix)
    if (session) await deps.store.accounts.revokeToken(session)
    deleteCookie(c, SESSION_COOKIE, {path: '/', secure: prefix === 'host', prefix})
    return c.redirect(LOGIN_PATH, 303)
  })

  return app
}
