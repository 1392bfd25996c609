/**
 * The web console at `/`: a Svelte app built by Vite at build time (`scripts/build-console.js` →
 * `dist/console`), served as files. It talks to the JSON API with the session cookie; visitors
 * without a session go to the login page (token → HttpOnly session).
 */
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {Hono} from 'hono'
import {PACKAGE_ROOT} from '../../paths.js'
import type {AppEnv} from '../env.js'
import {LOGIN_PATH} from './login.js'

const CONSOLE_DIR = join(PACKAGE_ROOT, 'dist', 'console')
const ASSET_RE = /^[A-Za-z0-9_-]+\.(js|css)$/
const TYPES = {js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8'} as const
/** The icon of the console and login pages: browsers ask `/favicon.ico` of every page; an SVG answers it. */
export const CONSOLE_ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f4fd1"/>'
  + '<path d="M21.5 11.2c-1.3-1.5-3.2-2.2-5.3-2.2-3 0-5.2 1.6-5.2 4 0 2.6 2.3 3.4 5 4 2.2.5 3.2 1 3.2 2.1 0 1.2-1.2 1.9-3 1.9-1.8 0-3.3-.7-4.4-2l-1.8 1.9c1.4 1.7 3.6 2.6 6.1 2.6 3.3 0 5.6-1.7 5.6-4.4 0-2.6-2.1-3.5-5.1-4.1-2.1-.4-3.1-.9-3.1-1.9 0-1 1-1.7 2.6-1.7 1.5 0 2.7.6 3.6 1.6z" fill="#fff"/></svg>'

export function consoleRoutes(dir = CONSOLE_DIR) {
  const app = new Hono<AppEnv>()
  const files = new Map<string, Buffer>()
  const load = async (name: string) => {
    let data = files.get(name)
    if (!data) {
      data = await readFile(join(dir, name)).catch(() => undefined)
      if (data) files.set(name, data)
    }
    return data
  }

  app.get('/', async (c) => {
    c.header('Cache-Control', 'no-store')
    if (!c.get('user')) return c.redirect(`${LOGIN_PATH}?next=/`, 303)
    const html = await load('index.html')
    if (!html) return c.json({error: 'the console is not built: run npm run build'}, 404)
    return c.html(html.toString('utf8'))
  })

  app.get('/favicon.ico', (c) => {
    c.header('Content-Type', 'image/svg+xml')
    c.header('Cache-Control', 'public, max-age=86400')
    c.header('X-Content-Type-Options', 'nosniff')
    return c.body(CONSOLE_ICON)
  })

  app.get('/console/assets/:file', async (c) => {
    const file = c.req.param('file')
    const m = ASSET_RE.exec(file)
    const data = m ? await load(join('assets', file)) : undefined
    if (!m || !data) return c.json({error: 'not found'}, 404)
    c.header('Content-Type', TYPES[m[1] as 'js' | 'css'])
    c.header('Cache-Control', 'public, max-age=31536000, immutable')
    c.header('X-Content-Type-Options', 'nosniff')
    return c.body(new Uint8Array(data))
  })
  return app
}
