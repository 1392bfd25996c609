/**
 * The public visitor cookie (`svc_visitor`): a random key signed with a key of the origin it was
 * issued on, `__Host-` over https. `{cookie_key}` of the public methods, and the visitor of the
 * public read limits.
 */
import {createHmac} from 'node:crypto'
import type {Context} from 'hono'
import {getSignedCookie} from 'hono/cookie'
import type {AppEnv, Deps} from '../../env.js'
import {isHttps} from '../../client-ip.js'

export const VISITOR_COOKIE = 'svc_visitor'

/** The key visitor ids of one origin (`host[:port]`) are signed with: the server's cookie secret bound to the host. */
export function visitorSecret(secret: string, host: string): string {
  return createHmac('sha256', secret).update(`svc_visitor\0${host.toLowerCase()}`).digest('base64url')
}

/** The signing key of this request's origin, and the cookie prefix (`host` over https: no sibling host can set it). */
export async function visitorCookieScope(c: Context<AppEnv>, deps: Deps): Promise<{secret: string; prefix: 'host' | undefined}> {
  const secret = visitorSecret(await deps.store.accounts.secret('cookie'), new URL(c.req.url).host)
  return {secret, prefix: isHttps(c, deps) ? 'host' : undefined}
}

/** The visitor key of a valid cookie of this origin, or '' (none, forged, altered or issued elsewhere). */
export async function visitorCookieKey(c: Context<AppEnv>, deps: Deps, scope?: {secret: string; prefix: 'host' | undefined}): Promise<string> {
  if (!(c.req.header('cookie') ?? '').includes(VISITOR_COOKIE)) return ''
  const {secret, prefix} = scope ?? (await visitorCookieScope(c, deps))
  const signed = await getSignedCookie(c, secret, VISITOR_COOKIE, prefix)
  return typeof signed === 'string' && /^[A-Za-z0-9_-]{16,64}$/.test(signed) ? signed : ''
}
