/**
 * Refuses (403) a write carried by one of the server's cookies when a browser made it from another
 * site or as a navigation (src/core/auth/cross-site.ts): public db creates, updates and deletes and
 * app actions, on the main origin and on app origins. Mounted before the app-origin middleware, which
 * may drop the cookies of such a request: the refusal is said, not silently turned into an anonymous write.
 */
import type {Context, MiddlewareHandler} from 'hono'
import {crossSiteWriteRefusal} from '../../core/auth/cross-site.js'
import {forbidden} from '../../core/errors.js'
import type {AppEnv} from '../env.js'

/** The cookies that carry who the caller is: the console session, an app's sign-in, a visitor id (plain or `__Host-`). */
const CREDENTIAL_COOKIE = /(?:^|;)\s*(?:__Host-)?svc_(?:session|app_session|visitor)=/

export function carriesCredentialCookie(c: Context<AppEnv>): boolean {
  const cookie = c.req.header('cookie')
  return cookie !== undefined && CREDENTIAL_COOKIE.test(cookie)
}

/** Middleware: when `isWrite(c)`, a request carrying a credential cookie must be a same-origin, non-navigation one. */
export function refuseCrossSiteWrites(isWrite: (c: Context<AppEnv>) => boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (isWrite(c) && carriesCredentialCookie(c)) {
      const why = crossSiteWriteRefusal({
        host: new URL(c.req.url).host,
        secFetchSite: c.req.header('sec-fetch-site'),
        secFetchMode: c.req.header('sec-fetch-mode'),
        origin: c.req.header('origin'),
        referer: c.req.header('referer'),
      })
      if (why) throw forbidden(why)
    }
    await next()
  }
}
