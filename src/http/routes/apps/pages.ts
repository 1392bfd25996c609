/**
 * Browser pages of the apps area: `/a/:url_code` and `/a/:id` (the HTML shell), the app's hashed
 * assets, the engine libraries under `/_svc/lib/`, and the login page that sets the session cookie.
 */
import {readFile} from 'node:fs/promises'
import {Hono, type Context} from 'hono'
import {deleteCookie, getCookie, setCookie} from 'hono/cookie'
import {contextUser, escapeHtml, renderShell, type SvcAppContext} from '../../../core/apps/shell.js'
import {UUID_RE, type AppEngine, type CssEngine} from '../../../core/apps/validate.js'
import type {Principal} from '../../../core/auth/permissions.js'
import type {AppRecord} from '../../../store/apps/types.js'
import type {AppEnv, Deps} from '../../env.js'
import {SESSION_COOKIE} from '../../middleware/auth.js'

export const LOGIN_PATH = '/svc/login'
/** Session lifetime: one month (platform-api.md "Limits": cookie lifetime). */
const SESSION_TTL = 30 * 24 * 3600
const IMMUTABLE = 'max-age=31536000, immutable'

/** Only a local path may be a redirect target (no `//host`, no scheme). */
export function safeNext(next: string | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || /[\r\n]/.test(next)) return '/'
  return next
}

const page = (title: string, body: string) =>
  `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<title>${escapeHtml(title)}</title><style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#222}` +
  `input{width:100%;padding:.5rem;margin:.5rem 0;box-sizing:border-box}button{padding:.5rem 1rem}.err{color:#b00}</style></head>` +
  `<body>${body}</body></html>\n`

function loginPage(next: string, error?: string) {
  return page('Sign in', `<h1>Sign in</h1>${error ? `<p class="err">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${LOGIN_PATH}">
<label for="token">API token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<input type="hidden" name="next" value="${escapeHtml(next)}">
<button type="submit">Sign in</button>
</form>`)
}

const notFoundPage = (c: Context) => {
  c.header('Cache-Control', 'no-store')
  return c.html(page('Not found', '<h1>Not found</h1><p>There is no app at this address.</p>'), 404)
}

export function appPagesRoutes(deps: Deps) {
  const app = new Hono<AppEnv>()
  const apps = deps.store.apps
  const libCache = new Map<string, Buffer>()

  /**
   * `/a/:key`: a UUID is an app id (any account); otherwise a url_code. url_code is unique per
   * account only: the app of the signed-in visitor's account wins, else the oldest app with it.
   */
  async function resolveApp(key: string, user: Principal | null): Promise<AppRecord | null> {
    if (UUID_RE.test(key)) return apps.getById(key.toLowerCase())
    const found = await apps.findByUrlCode(key)
    if (found.length === 0) return null
    return (user && found.find((a) => a.account_id === user.accountId)) ?? found[0]!
  }

  const member = (app: AppRecord, user: Principal | null) => !!user && user.accountId === app.account_id
  const assetName = (app: AppRecord, ext: 'js' | 'css') => `app.${app.build_hash.slice(0, 16)}.${ext}`

  app.get('/a/:key', async (c) => {
    const user = c.get('user')
    const found = await resolveApp(c.req.param('key'), user)
    if (!found || !found.active) return notFoundPage(c)
    if (!found.public && !member(found, user)) {
      return c.redirect(`${LOGIN_PATH}?next=${encodeURIComponent(new URL(c.req.url).pathname)}`, 302)
    }
    let ctxUser = null
    if (user && member(found, user)) ctxUser = contextUser(await deps.store.accounts.getUser(user.accountId, user.id))
    const context: SvcAppContext = {
      user: ctxUser,
      app: {id: found.id, name: found.name, url_code: found.url_code, db_code: found.db_code},
    }
    const {libUrl} = await import('../../../compile/libs.js')
    const engine = found.app_engine as AppEngine
    const html = renderShell({
      engine,
      cssEngine: found.css_engine as CssEngine,
      title: found.name,
      context,
      html: engine === 'html' ? found.app_code : undefined,
      scriptUrl: engine !== 'html' && found.app_code ? `/a/${found.id}/${assetName(found, 'js')}` : undefined,
      cssUrl: found.css_code ? `/a/${found.id}/${assetName(found, 'css')}` : undefined,
      tailwindBrowserUrl: libUrl('tailwind-browser.js'),
    })
    c.header('Cache-Control', found.public ? 'no-cache' : 'private, no-cache')
    c.header('X-Content-Type-Options', 'nosniff')
    return c.html(html)
  })

  app.get('/a/:key/:asset{app\\.[0-9a-f]{16}\\.(js|css)}', async (c) => {
    const user = c.get('user')
    const found = await resolveApp(c.req.param('key'), user)
    if (!found || !found.active || (!found.public && !member(found, user))) return c.json({error: 'not found'}, 404)
    const asset = c.req.param('asset')
    const ext = asset.endsWith('.css') ? 'css' : 'js'
    if (asset !== assetName(found, ext)) return c.json({error: 'not found'}, 404)
    const body = ext === 'css' ? found.css_code : found.app_code
    if (!body || found.app_engine === 'html') return c.json({error: 'not found'}, 404)
    c.header('Cache-Control', `${found.public ? 'public' : 'private'}, ${IMMUTABLE}`)
    c.header('Content-Type', ext === 'css' ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8')
    c.header('X-Content-Type-Options', 'nosniff')
    return c.body(body)
  })

  app.get('/_svc/lib/:name', async (c) => {
    const {LIBS, libPath} = await import('../../../compile/libs.js')
    const name = c.req.param('name')
    const path = Object.prototype.hasOwnProperty.call(LIBS, name) ? libPath(name) : null
    if (!path) return c.json({error: 'not found'}, 404)
    let data = libCache.get(name)
    if (!data) {
      data = await readFile(path)
      libCache.set(name, data)
    }
    c.header('Content-Type', LIBS[name]!.type)
    c.header('Cache-Control', `public, ${IMMUTABLE}`)
    c.header('X-Content-Type-Options', 'nosniff')
    return c.body(new Uint8Array(data))
  })

  app.get(LOGIN_PATH, (c) => {
    c.header('Cache-Control', 'no-store')
    return c.html(loginPage(safeNext(c.req.query('next'))))
  })

  app.post(LOGIN_PATH, async (c) => {
    c.header('Cache-Control', 'no-store')
    const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>))
    const token = typeof form.token === 'string' ? form.token.trim() : ''
    const next = safeNext(typeof form.next === 'string' ? form.next : undefined)
    const user = token ? await deps.store.accounts.authenticate(token) : null
    if (!user) return c.html(loginPage(next, 'That token is not valid.'), 401)
    const session = await deps.store.accounts.createToken(user.id, 'session', SESSION_TTL)
    setCookie(c, SESSION_COOKIE, session, {
      httpOnly: true,
      sameSite: 'Lax',
      path: '/',
      maxAge: SESSION_TTL,
      secure: new URL(c.req.url).protocol === 'https:',
    })
    return c.redirect(next, 303)
  })

  app.post('/svc/logout', async (c) => {
    const session = getCookie(c, SESSION_COOKIE)
    if (session) await deps.store.accounts.revokeToken(session)
    deleteCookie(c, SESSION_COOKIE, {path: '/'})
    return c.redirect(LOGIN_PATH, 303)
  })

  return app
}
