import type {Context, MiddlewareHandler} from 'hono'
import {getCookie} from 'hono/cookie'
import type {Principal} from '../../core/auth/permissions.js'
import {hasPermission, refusal, type Action} from '../../core/auth/permissions.js'
import {forbidden, unauthorized} from '../../core/errors.js'
import {READ_ONLY_TOKEN} from '../../store/accounts/types.js'
import {isHttps} from '../client-ip.js'
import type {AppEnv, Deps} from '../env.js'

export const SESSION_COOKIE = 'svc_session'
/**
 * The prefix of the console session cookie: over https `__Host-` (host-only, Secure, Path=/), which
 * no other host can set — an app on a sibling subdomain could otherwise toss in its own
 * `svc_session` for the parent domain and have the victim's console calls run as the attacker.
 * The plain name is not read over https. Over http no prefix is possible: `svc serve` warns at
 * start when the apps share the console's parent domain (hosts.ts `appsUrlRisks`).
 */
export const sessionCookiePrefix = (c: Context<AppEnv>, deps: Pick<Deps, 'trustProxy'>) => (isHttps(c, deps) ? 'host' as const : undefined)
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Works out who is calling, without refusing anyone: the embedded transport's user, a bearer
 * token, or a session cookie. Routes that need a user call `requireUser(c)`.
 */
export function identify(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // An app origin has identified its (app-scoped) visitor already and never looks at anything else.
    if (c.get('hostedApp')) return next()
    c.set('user', null)
    c.set('token', null)
    c.set('authVia', null)
    c.set('authFailed', false)
    const embeddedId = c.env?.svcEmbeddedUserId
    if (typeof embeddedId === 'number') {
      const user = await deps.store.accounts.principal(embeddedId)
      if (user) {
        c.set('user', user)
        c.set('authVia', 'embedded')
      }
      return next()
    }
    const header = c.req.header('authorization')
    if (header !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
      const user = match ? await deps.store.accounts.authenticate(match[1]) : null
      const reader = match && !user ? await deps.store.accounts.authenticate(match[1], READ_ONLY_TOKEN) : null
      if (user ?? reader) {
        c.set('user', (user ?? reader)!)
        c.set('token', match![1])
        c.set('authVia', 'bearer')
        c.set('readOnly', !!reader)
      } else c.set('authFailed', true)
      return next()
    }
    const session = sessionCookieAllowed(c) ? getCookie(c, SESSION_COOKIE, sessionCookiePrefix(c, deps)) : undefined
    if (session) {
      const user = await deps.store.accounts.authenticate(session, 'session')
      if (user) {
        if (!SAFE_METHODS.has(c.req.method) && !sameOrigin(c)) throw forbidden('cross-origin request refused')
        c.set('user', user)
        c.set('authVia', 'session')
      }
    }
    return next()
  }
}

/**
 * The console session is only honoured on requests of the main origin's own pages, on navigations
 * and on requests a person typed: a read another site's script makes with `credentials: 'include'`
 * (an app on its sibling origin, say) is answered as anonymous, not only hidden by CORS.
 */
function sessionCookieAllowed(c: Context): boolean {
  const site = c.req.header('sec-fetch-site')
  if (!site || site === 'same-origin' || site === 'none') return true
  return c.req.header('sec-fetch-mode') === 'navigate'
}

/** A state-changing request carried by the session cookie alone must come from this server's origin. */
export function sameOrigin(c: Context): boolean {
  const site = c.req.header('sec-fetch-site')
  if (site) return site === 'same-origin'
  const origin = c.req.header('origin') ?? c.req.header('referer')
  if (!origin) return false
  try {
    return new URL(origin).host === new URL(c.req.url).host
  } catch {
    return false
  }
}

/** The signed-in user, or a 401 (`WWW-Authenticate: Bearer`). */
export function requireUser(c: Context<AppEnv>): Principal {
  const user = c.get('user')
  if (!user) throw unauthorized()
  return user
}

/** Route middleware: 401 without a signed-in user. */
export const userRequired: MiddlewareHandler<AppEnv> = async (c, next) => {
  requireUser(c)
  await next()
}

/** Route middleware: the roles table's `action` (`requireCan`), checked before anything is looked up or read. */
export const allowedTo = (action: Action): MiddlewareHandler<AppEnv> => async (c, next) => {
  requireCan(c, action)
  await next()
}

/** The signed-in user allowed to do `action` by the roles table (src/core/auth/permissions.ts), else 403. */
export function requireCan(c: Context<AppEnv>, action: Action): Principal {
  const user = requireUser(c)
  const why = refusal(user, action)
  if (why) throw forbidden(why)
  return user
}
