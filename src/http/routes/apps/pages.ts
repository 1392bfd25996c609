/**
 * Browser pages of the apps area on the main origin: `/a/:url_code` and `/a/:id` hand over to the
 * app's own origin (src/http/app-origin/, where the page and its assets are served), and the engine
 * libraries under `/_svc/lib/` (also used by `svc app dev`).
 */
import {readFile} from 'node:fs/promises'
import {Hono, type Context} from 'hono'
import {UUID_RE} from '../../../core/apps/validate.js'
import type {Principal} from '../../../core/auth/permissions.js'
import {handoverKind} from '../../../store/accounts/types.js'
import type {AppRecord} from '../../../store/apps/types.js'
import {READ_ONLY_HEADER} from '../../agent-headers.js'
import {appOrigin, labelOf} from '../../app-origin/hosts.js'
import {HANDOVER_TTL} from '../../app-origin/routes.js'
import type {AppEnv, Deps} from '../../env.js'
import {htmlPage, LOGIN_PATH} from '../login.js'

const IMMUTABLE = 'max-age=31536000, immutable'

const notFoundPage = (c: Context) => {
  c.header('Cache-Control', 'no-store')
  return c.html(htmlPage('Not found', '<h1>Not found</h1><p>There is no app at this address.</p>'), 404)
}

export function appPagesRoutes(deps: Deps) {
  const app = new Hono<AppEnv>()
  const apps = deps.store.apps
  const libCache = new Map<string, Buffer>()

  /**
   * `/a/:key`: a UUID is an app id (any account); otherwise a url_code, unique server-wide since
   * issue 15. Of duplicates made before, the signed-in visitor's account's wins, else the oldest.
   */
  async function resolveApp(key: string, user: Principal | null): Promise<AppRecord | null> {
    if (UUID_RE.test(key)) return apps.getById(key.toLowerCase())
    const found = await apps.findByUrlCode(key)
    if (found.length === 0) return null
    return (user && found.find((a) => a.account_id === user.accountId)) ?? found[0]!
  }

  const member = (app: AppRecord, user: Principal | null) => !!user && user.accountId === app.account_id

  /**
   * `/a/:key` on the main origin hands over to the app's own origin (src/http/app-origin/): a member
   * of the app's account gets a one-use handover token for the app-scoped sign-in there; anyone else
   * goes there as an anonymous visitor (a private app first sends them to sign in here).
   */
  app.get('/a/:key', async (c) => {
    c.header('Cache-Control', 'no-store')
    const user = c.get('user')
    const found = await resolveApp(c.req.param('key'), user)
    if (!found || !found.active) return notFoundPage(c)
    const origin = appOrigin(c, deps, await labelOf(apps, found))
    const search = new URL(c.req.url).search
    if (user && member(found, user)) {
      // A read-only caller (token or connection) hands over to a read-only sign-in: it may look, never write.
      const readOnly = c.get('readOnly') === true || c.req.header(READ_ONLY_HEADER) !== undefined
      const token = await deps.store.accounts.createToken(user.id, handoverKind(found.id, readOnly), HANDOVER_TTL)
      return c.redirect(`${origin}/_svc/signin?token=${token}&next=${encodeURIComponent(`/${search}`)}`, 302)
    }
    if (!found.public) return c.redirect(`${LOGIN_PATH}?next=${encodeURIComponent(new URL(c.req.url).pathname)}`, 302)
    return c.redirect(`${origin}/${search}`, 302)
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

  return app
}
