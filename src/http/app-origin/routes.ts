/**
 * The app origins (hosts.ts). A request whose host names an app is answered here and never reaches
 * the console or the private API: the app's page and assets, the engine libraries, its account's
 * public db methods and public connector methods, the app's own actions, the sign-in handover, and
 * for the app's signed-in members the private records API and feed of the db the app declares
 * (`/svc/dbs/<its id or code>/records…|search.json|changes`, with the permission the main origin
 * gives that user). Everything else is 404. The console session and bearer tokens are never looked
 * at; the only credential is an app-scoped cookie (`svc_app_session`, token kind `app:<id>`) that
 * names this app, minted from a one-use handover token the main origin's `/a/:key` gives a member.
 */
import type {Context, MiddlewareHandler} from 'hono'
import {getCookie, setCookie} from 'hono/cookie'
import {contextUser, escapeHtml, renderShell, type SvcAppContext} from '../../core/apps/shell.js'
import {assetType} from '../../core/apps/assets.js'
import {membersRoute} from '../../core/apps/members.js'
import {unauthorized} from '../../core/errors.js'
import {engineSpec} from '../../engines/index.js'
import {appSessionKind, handoverKind} from '../../store/accounts/types.js'
import type {AppRecord} from '../../store/apps/types.js'
import {isHttps} from '../client-ip.js'
import type {AppEnv, Deps} from '../env.js'
import {appCsp} from '../middleware/security-headers.js'
import {appLabelOf, appOfLabel, mainOrigin} from './hosts.js'

export const APP_SESSION_COOKIE = 'svc_app_session'
/** Which app this browser last saw on this origin (its id): another one means the url_code changed hands. */
export const APP_MARKER_COOKIE = 'svc_app'
/**
 * What a browser must drop when an origin's app is not the one it knew: service workers, storage
 * (localStorage, IndexedDB, the Cache API) and the HTTP cache. Not "cookies": under `--apps-url`
 * they would be cleared for the whole registrable domain, the main origin's sign-in included.
 */
export const CLEAR_SITE_DATA = '"cache", "storage"'
/** An app origin's sign-in lasts 12 hours; the console sign-in hands over a new one on the next visit. */
export const APP_SESSION_TTL = 12 * 3600
/** A handover token is good for one use within two minutes. */
export const HANDOVER_TTL = 120

const IMMUTABLE = 'max-age=31536000, immutable'
const ASSET_RE = /^\/app\.([0-9a-f]{16})\.(js|css)$/

const NEXT_BASE = 'http://svc.invalid'

/**
 * Only a local path of this origin may be a redirect target (no `//host`, no scheme, no tab or
 * backslash tricks). The path is normalised once (dot segments, `%2e`) and the check is made on
 * what is returned: `/.//evil.example`, `/a/..//evil.example` and `/%2e//evil.example` all
 * normalise to `//evil.example`, a host, and are refused.
 */
export function safeNext(next: string | undefined, fallback = '/'): string {
  if (!next || next.length > 2000 || /[\x00-\x20\\]/.test(next)) return fallback
  let url: URL
  try {
    url = new URL(next, NEXT_BASE)
  } catch {
    return fallback
  }
  const target = url.pathname + url.search + url.hash
  const local = next.startsWith('/') && url.origin === NEXT_BASE && target.startsWith('/') && !target.startsWith('//') && !/[\x00-\x20\\]/.test(target)
  return local ? target : fallback
}

/**
 * Whether a browser request may carry this origin's cookies: same-origin requests, requests typed
 * by the user (`none`) and top-level or frame navigations. A request another site's page makes
 * (another app on a sibling host, say) is answered as if it had no cookies at all.
 */
export function cookiesAllowed(c: Context<AppEnv>): boolean {
  const site = c.req.header('sec-fetch-site')
  if (!site || site === 'same-origin' || site === 'none') return true
  return c.req.header('sec-fetch-mode') === 'navigate' && (c.req.method === 'GET' || c.req.method === 'HEAD')
}

const isNavigation = (c: Context<AppEnv>) =>
  c.req.header('sec-fetch-mode') === 'navigate' || ['document', 'iframe', 'frame'].includes(c.req.header('sec-fetch-dest') ?? '')

/**
 * The marker of the app a browser saw on this origin: when it names another app (or none: a first
 * visit, or a visit from before the marker), the page answers `Clear-Site-Data` so nothing a former
 * app at this url_code left (service workers, storage, cache) reaches the app there now.
 */
/**
 * A cookie of the app's origin that a dashboard tile (a frame of the app in the console, another
 * site) keeps: over https (and on `*.localhost`, which browsers treat as secure) SameSite=None and
 * Partitioned, so a browser that blocks third-party cookies still keeps it in that frame, under the
 * console's site only (CHIPS). Plain http elsewhere: Lax.
 */
const framedCookie = (secure: boolean) =>
  secure ? {secure: true, sameSite: 'None', partitioned: true} as const : {secure: false, sameSite: 'Lax'} as const

const isSecureContext = (c: Context<AppEnv>, https: boolean) => https || new URL(c.req.url).hostname.endsWith('.localhost')

function markVisit(c: Context<AppEnv>, deps: Deps, app: AppRecord) {
  const https = isHttps(c, deps)
  const prefix = https ? 'host' : undefined
  if (getCookie(c, APP_MARKER_COOKIE, prefix) === app.id) return
  c.header('Clear-Site-Data', CLEAR_SITE_DATA)
  c.header('Cache-Control', 'private, no-cache')
  // Kept in a dashboard tile (a frame) like the sign-in, else every tile view would clear the app's storage.
  setCookie(c, APP_MARKER_COOKIE, app.id, {httpOnly: true, path: '/', maxAge: 400 * 24 * 3600, ...framedCookie(isSecureContext(c, https)), prefix})
}

const page = (title: string, body: string) =>
  `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>\n`

/** Routes of the main API that also answer on an app origin (the rest is 404 there). */
function allowedThrough(c: Context<AppEnv>, app: AppRecord): 'db' | 'records' | 'action' | 'connector' | 'lib' | null {
  const path = new URL(c.req.url).pathname
  const method = c.req.method
  const read = method === 'GET' || method === 'HEAD'
  if ((read || method === 'POST') && /^\/svc\/db\/[^/]+\/[^/]+$/.test(path)) return 'db'
  if (membersRoute(method, path) !== null) return 'records'
  if ((read || method === 'POST') && /^\/svc\/connector\/[^/]+\/[^/]+$/.test(path)) return 'connector'
  if (read && /^\/_svc\/lib\/[^/]+$/.test(path)) return 'lib'
  const action = /^\/svc\/apps\/([^/]+)\/action\/[^/]+(\/status)?$/.exec(path)
  if (action && action[1]!.toLowerCase() === app.id && (action[2] ? read : method === 'POST')) return 'action'
  return null
}

/**
 * Runs before `identify`: on the main origin it does nothing; on an app origin it answers the app's
 * own routes, lets the allowed API routes through with the app-scoped user (or none), and 404s the rest.
 */
export function appOrigin(deps: Deps): MiddlewareHandler<AppEnv> {
  const accounts = deps.store.accounts
  return async (c, next) => {
    const label = appLabelOf(c, deps)
    if (label === null) return next()
    // No service worker on an app origin: it would outlive the app and keep serving its pages after
    // the url_code changed hands. Its script fetch (a registration or an update check) is refused, and
    // any worker already there is unregistered with the origin's storage.
    if (c.req.header('service-worker') !== undefined || c.req.header('sec-fetch-dest') === 'serviceworker') {
      c.header('Clear-Site-Data', CLEAR_SITE_DATA)
      c.header('Cache-Control', 'no-store')
      return c.json({error: 'service workers are not allowed on app origins'}, 403)
    }
    const app = await appOfLabel(deps.store.apps, label)
    if (!app || !app.active) {
      // A deleted app's origin: whatever its pages left in a browser that comes back goes.
      if (!app && isNavigation(c)) c.header('Clear-Site-Data', CLEAR_SITE_DATA)
      return c.json({error: 'not found'}, 404)
    }
    c.set('hostedApp', app)
    c.set('user', null)
    c.set('token', null)
    c.set('authVia', null)
    c.set('authFailed', false)
    if (!cookiesAllowed(c)) {
      const headers = new Headers(c.req.raw.headers)
      headers.delete('cookie')
      c.req.raw = new Request(c.req.raw, {headers})
    }
    // Over https the sign-in is a `__Host-` cookie (no sibling host can set one); the plain name is not read there.
    const raw = getCookie(c, APP_SESSION_COOKIE, isHttps(c, deps) ? 'host' : undefined)
    const full = raw ? await accounts.authenticate(raw, appSessionKind(app.id, false)) : null
    // A sign-in handed over from a read-only caller: readOnlyTokens refuses its every write.
    const reader = raw && !full ? await accounts.authenticate(raw, appSessionKind(app.id, true)) : null
    const user = full ?? reader
    if (user && user.accountId === app.account_id) {
      c.set('user', user)
      c.set('authVia', 'app')
      c.set('readOnly', !!reader)
    }
    const path = new URL(c.req.url).pathname
    const method = c.req.method
    if (method === 'GET' || method === 'HEAD') {
      if (path === '/') return appPage(c, deps, app)
      const asset = ASSET_RE.exec(path)
      if (asset) return appAsset(c, app, asset[1]!, asset[2] as 'js' | 'css')
      if (path === '/_svc/signin') return signIn(c, deps, app)
      if (path === '/_svc/check') return check(c, deps, app)
      const stored = await storedAsset(c, deps, app, path)
      if (stored) return stored
    }
    const through = allowedThrough(c, app)
    if (!through) return c.json({error: 'not found'}, 404)
    // The app-scoped sign-in counts for the app's own actions and db methods only.
    if (through === 'connector' || through === 'lib') c.set('user', null)
    // The private records API and feed of the app's own db, for its signed-in members only (as the
    // main origin answers them to that user): another db is a 404 for anyone (as every route the
    // origin does not answer), the app's db a 401 to anyone not signed in on this origin.
    if (through === 'records') {
      if (!(await declaresDb(deps, app, membersRoute(method, path)!))) return c.json({error: 'not found'}, 404)
      if (!c.get('user')) throw unauthorized()
    }
    return next()
  }
}

/** Whether `key` (a db id or code, as the main routes take it) names the db the app declares, in its account. */
async function declaresDb(deps: Deps, app: AppRecord, key: string): Promise<boolean> {
  if (!app.db_code || key.length === 0 || key.length > 64) return false
  const db = await deps.store.dbs.get(app.account_id, key, {count: false})
  return db !== null && db.code === app.db_code
}

async function appPage(c: Context<AppEnv>, deps: Deps, app: AppRecord) {
  const user = c.get('user')
  if (!app.public && !user) {
    const search = new URL(c.req.url).search
    return c.redirect(`${mainOrigin(c, deps)}/a/${app.id}${search}`, 302)
  }
  const ctxUser = user ? contextUser(await deps.store.accounts.getUser(user.accountId, user.id)) : null
  const context: SvcAppContext = {user: ctxUser, app: {id: app.id, name: app.name, url_code: app.url_code, db_code: app.db_code}}
  const {cssScriptUrl} = await import('../../compile/libs.js')
  const whole = engineSpec(app.app_engine).page.script === 'html'
  const hash = app.build_hash.slice(0, 16)
  const html = renderShell({
    engine: app.app_engine,
    title: app.name,
    context,
    html: whole ? app.app_code : undefined,
    scriptUrl: !whole && app.app_code ? `/app.${hash}.js` : undefined,
    cssUrl: app.css_code ? `/app.${hash}.css` : undefined,
    cssScriptUrl: cssScriptUrl(app.app_engine, app.css_engine),
  })
  c.header('Cache-Control', app.public ? 'no-cache' : 'private, no-cache')
  c.header('Content-Security-Policy', appCsp(frameAncestors(c, deps)))
  markVisit(c, deps, app)
  return c.html(html)
}

/** The main origin may frame app pages (dashboard tiles); nobody else. */
function frameAncestors(c: Context<AppEnv>, deps: Deps): string {
  if (deps.publicUrl || deps.appsUrl) return `'self' ${mainOrigin(c, deps)}`
  return "'self' http://localhost:* https://localhost:* http://127.0.0.1:* https://127.0.0.1:*"
}

function appAsset(c: Context<AppEnv>, app: AppRecord, hash: string, ext: 'js' | 'css') {
  if (!app.public && !c.get('user')) return c.json({error: 'not found'}, 404)
  const body = ext === 'css' ? app.css_code : app.app_code
  if (hash !== app.build_hash.slice(0, 16) || !body || engineSpec(app.app_engine).page.script === 'html') return c.json({error: 'not found'}, 404)
  c.header('Cache-Control', `${app.public ? 'public' : 'private'}, ${IMMUTABLE}`)
  c.header('Content-Type', ext === 'css' ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8')
  return c.body(body)
}

/**
 * An asset of the app at its own path (`/assets/sky.png`, docs/apps.md "Assets"), or null when the
 * path names none (the request goes on). Private apps need the app origin's sign-in, as the page does.
 */
async function storedAsset(c: Context<AppEnv>, deps: Deps, app: AppRecord, urlPath: string) {
  let path: string
  try {
    path = decodeURIComponent(urlPath.slice(1))
  } catch {
    return null
  }
  if ('error' in assetType(path)) return null
  if (!app.public && !c.get('user')) return null
  const asset = await deps.store.apps.getAsset(app.id, path)
  if (!asset) return null
  const etag = `"${asset.sha256}"`
  c.header('ETag', etag)
  c.header('Cache-Control', `${app.public ? 'public' : 'private'}, no-cache`)
  if (c.req.header('if-none-match') === etag) return c.body(null, 304)
  c.header('Content-Type', asset.content_type)
  c.header('Content-Length', String(asset.size))
  return c.body(new Uint8Array(asset.data))
}

/** `/_svc/signin?token=&next=`: trades a handover token of this app for the app-scoped cookie. */
async function signIn(c: Context<AppEnv>, deps: Deps, app: AppRecord) {
  const accounts = deps.store.accounts
  const raw = c.req.query('token') ?? ''
  const next = safeNext(c.req.query('next'))
  const usable = raw && raw.length <= 512
  const full = usable ? await accounts.authenticate(raw, handoverKind(app.id, false)) : null
  const reader = usable && !full ? await accounts.authenticate(raw, handoverKind(app.id, true)) : null
  const user = full ?? reader
  if (!user || user.accountId !== app.account_id) return c.redirect(next, 303)
  await accounts.revokeToken(raw)
  const session = await accounts.createToken(user.id, appSessionKind(app.id, !!reader), APP_SESSION_TTL)
  // Kept in a dashboard tile (framedCookie); requests of other sites never get to use it anyway
  // (cookiesAllowed). Over https it is `__Host-svc_app_session`: host-only, and no other app's host
  // can toss one in.
  const https = isHttps(c, deps)
  setCookie(c, APP_SESSION_COOKIE, session, {httpOnly: true, path: '/', maxAge: APP_SESSION_TTL, ...framedCookie(isSecureContext(c, https)),
    prefix: https ? 'host' : undefined})
  c.header('Referrer-Policy', 'no-referrer')
  c.header('Cache-Control', 'no-store')
  return c.redirect(`/_svc/check?next=${encodeURIComponent(next)}`, 303)
}

/** After a sign-in: on to the app when the browser kept the cookie, else a page (never a redirect loop). */
function check(c: Context<AppEnv>, deps: Deps, app: AppRecord) {
  const next = safeNext(c.req.query('next'))
  c.header('Cache-Control', 'no-store')
  if (c.get('user')) return c.redirect(next, 303)
  const link = `${mainOrigin(c, deps)}/a/${app.id}`
  // Shown where the app would have been, a dashboard tile included.
  c.header('Content-Security-Policy', `default-src 'none'; frame-ancestors ${frameAncestors(c, deps)}; base-uri 'none'`)
  return c.html(page('Sign-in not kept', `<h1>${escapeHtml(app.name)}</h1><p>Your browser did not keep this app's sign-in ` +
    `(it may refuse cookies in a frame). <a href="${escapeHtml(link)}" target="_blank" rel="noopener">Open the app in its own tab</a>.</p>`), 403)
}
