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
