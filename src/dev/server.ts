/**
 * `svc app dev DIR`: a Vite dev server (HMR) over the folder's source file, in the same HTML shell
 * as `/a/`, with `window.SvcAppContext` of the backend's user. `/svc/db/*`, `/svc/apps/:id/action/*`,
 * `/svc/connector/*` and `/_svc/lib/*` go to the backend through `Backend.fetch` (so an embedded
 * backend is called in-process). `--push` sends the source to the backend on save (debounced).
 */
import type {IncomingMessage, ServerResponse} from 'node:http'
import {performance} from 'node:perf_hooks'
import {Client, type Backend} from '../client/backend.js'
import {mountEntry, SOURCE_FILE} from '../core/apps/entry.js'
import {contextUser, renderShell, type ContextUser, type SvcAppContext} from '../core/apps/shell.js'
import type {AppView, CssEngine} from '../core/apps/validate.js'
import {isSvcError} from '../core/errors.js'
import {projectOf, readProject, writeProject, type AppProject} from './project.js'

export interface DevOptions {
  dir: string
  backend: Backend
  port?: number
  host?: string
  push?: boolean
  /** Debounce of --push, ms. */
  pushDelay?: number
  log: (line: string) => void
}

export interface DevServer {
  url: string
  close(): Promise<void>
}

const ENTRY = '/@svc/entry.js'
const PROXIED = [/^\/svc\/db\//, /^\/svc\/apps\/[^/]+\/action\//, /^\/svc\/connector\//, /^\/_svc\/lib\//]
const HOP_HEADERS = new Set(['host', 'connection', 'authorization', 'cookie', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade'])
const GAME_LIB: Record<string, string> = {phaser: 'phaser.esm.min.js', kaboom: 'kaplay.mjs', kaplay: 'kaplay.mjs'}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** Forwards one request to the backend and copies the answer back. */
async function proxy(backend: Backend, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !HOP_HEADERS.has(k)) headers[k] = v
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readBody(req)
  try {
    const answer = await backend.fetch(req.url!, {method: req.method, headers, body: body ? new Uint8Array(body) : undefined})
    const out: Record<string, string> = {}
    answer.headers.forEach((v, k) => {
      if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k)) out[k] = v
    })
    res.writeHead(answer.status, out)
    res.end(Buffer.from(await answer.arrayBuffer()))
  } catch (error) {
    res.writeHead(502, {'content-type': 'application/json'})
    res.end(JSON.stringify({error: `backend unreachable: ${(error as Error).message}`}))
  }
}

function entrySource(engine: string, cssEngine: string, file: string, libVersions: Record<string, string>): string {
  const report = `
if (import.meta.hot) {
  import.meta.hot.on('vite:afterUpdate', () => import.meta.hot.send('svc:updated', {}))
  import.meta.hot.send('svc:loaded', {})
}
`
  void cssEngine
  if (engine === 'svelte' || engine === 'vue' || engine === 'react') return mountEntry(engine, `/${file}`) + report
  if (engine === 'kaboom') {
    return `import kaplay from '/_svc/lib/kaplay.mjs?v=${libVersions.kaplay}'\nglobalThis.kaplay = kaplay\nglobalThis.kaboom = kaplay\nawait import('/${file}')\n${report}`
  }
  if (engine === 'phaser') {
    return `import * as P from '/_svc/lib/phaser.esm.min.js?v=${libVersions.phaser}'\nglobalThis.Phaser = P.default ?? P\nawait import('/${file}')\n${report}`
  }
  return `import '/${file}'\n${report}`
}

export async function startDevServer(options: DevOptions): Promise<DevServer> {
  const {backend, log} = options
  const client = new Client(backend)
  const loaded = await readProject(options.dir)
  let project: AppProject = loaded.project
  const engine = project.app_engine
  const file = SOURCE_FILE[engine]
  const me = await client.call('getMe')
  let app: AppView | null = null
  if (project.id) app = await client.call('getApp', {params: {id: project.id}}).catch(() => null)
  const context = (): SvcAppContext => ({
    user: contextUser(me),
    app: {id: app?.id ?? project.id ?? '', name: project.name, url_code: app?.url_code ?? project.url_code ?? '', db_code: app?.db_code ?? null},
  })
  const {packageVersion} = await import('../compile/libs.js')
  const libVersions = {kaplay: packageVersion('kaplay'), phaser: packageVersion('phaser')}
  const tailwindBrowserUrl = `/_svc/lib/tailwind-browser.js?v=${packageVersion('@tailwindcss/browser')}`

  // The app folder has no node_modules: Vite's root is a temp folder whose node_modules links to
  // this package's, and bare imports of the app resolve from there.
  const {packageDir} = await import('../compile/libs.js')
  const {mkdtemp, rm, symlink} = await import('node:fs/promises')
  const {join, dirname, sep} = await import('node:path')
  const {tmpdir} = await import('node:os')
  const root = await mkdtemp(join(tmpdir(), 'svc-dev-'))
  const modules = dirname(packageDir('vite'))
  await symlink(modules, join(root, 'node_modules'), 'dir')
  const anchor = join(root, 'index.js')
  const vite = await import('vite')
  const plugins: unknown[] = []
  if (engine === 'svelte') plugins.push((await import('@sveltejs/vite-plugin-svelte')).svelte({configFile: false}))
  if (engine === 'vue') plugins.push((await import('@vitejs/plugin-vue')).default())
  if (engine === 'react') plugins.push((await import('@vitejs/plugin-react')).default())

  let changedAt: number | null = null
  let pushTimer: NodeJS.Timeout | undefined
  let pushing = Promise.resolve()

  async function pushNow(): Promise<void> {
    const {source} = await readProject(options.dir)
    const started = performance.now()
    try {
      const body = {app: {name: project.name, app_engine: project.app_engine, css_engine: project.css_engine, source_code: source}}
      const saved = project.id
        ? await client.call('updateApp', {params: {id: project.id}, body})
        : await client.call('createApp', {body})
      if (!project.id) {
        project = projectOf(saved)
        await writeProject(options.dir, project, source)
      }
      app = saved
      log(`pushed in ${Math.round(performance.now() - started)} ms (build ${saved.app_build_time} ms)`)
    } catch (error) {
      if (isSvcError(error) && error.code === 'validation') {
        log(`push refused: ${Object.entries(error.details ?? {}).map(([k, v]) => `${k} ${(v as string[]).join(', ')}`).join('; ')}`)
      } else log(`push failed: ${(error as Error).message}`)
    }
  }

  const svcPlugin = {
    name: 'svc-dev',
    enforce: 'pre' as const,
    async resolveId(this: any, id: string, importer: string | undefined, opts: any) {
      if (id === ENTRY) return '\0svc-entry.js'
      if (id.startsWith('/_svc/lib/')) return {id, external: true}
      if (importer && !importer.includes(`${sep}node_modules${sep}`) && /^[a-z@][^:]*$/i.test(id) && !GAME_LIB[id]) {
        return this.resolve(id, anchor, {...opts, skipSelf: true})
      }
      if (GAME_LIB[id]) return {id: `/_svc/lib/${GAME_LIB[id]}?v=${id === 'phaser' ? libVersions.phaser : libVersions.kaplay}`, external: true}
      return null
    },
    load(id: string) {
      if (id === '\0svc-entry.js') return entrySource(engine, project.css_engine, `@fs${loaded.sourceFile}`, libVersions)
      return null
    },
    configureServer(server: any) {
      server.ws.on('svc:updated', () => {
        if (changedAt !== null) log(`updated in ${Math.round(performance.now() - changedAt)} ms`)
        changedAt = null
      })
      server.ws.on('svc:loaded', () => {
        if (changedAt !== null) log(`updated in ${Math.round(performance.now() - changedAt)} ms (reload)`)
        changedAt = null
      })
      server.watcher.add(loaded.sourceFile)
      server.watcher.on('change', (path: string) => {
        if (path !== loaded.sourceFile) return
        changedAt = performance.now()
        if (engine === 'html') server.ws.send({type: 'full-reload', path: '*'})
        if (options.push) {
          clearTimeout(pushTimer)
          pushTimer = setTimeout(() => {
            pushing = pushing.then(pushNow)
          }, options.pushDelay ?? 300)
        }
      })
      server.middlewares.use(async (req: IncomingMessage, res: ServerResponse, next: () => void) => {
        const path = (req.url ?? '/').split('?')[0]!
        if (PROXIED.some((re) => re.test(path))) return void proxy(backend, req, res)
        if (path !== '/' && path !== '/index.html') return next()
        try {
          const {readFile} = await import('node:fs/promises')
          const html = renderShell({
            engine,
            cssEngine: project.css_engine === 'tailwind' ? 'tailwind_all' : (project.css_engine as CssEngine),
            title: `${project.name} (dev)`,
            context: context(),
            scriptUrl: engine === 'html' ? undefined : ENTRY,
            html: engine === 'html' ? await readFile(loaded.sourceFile, 'utf8') : undefined,
            tailwindBrowserUrl,
          }).replace(`<script src="${ENTRY}">`, `<script type="module" src="${ENTRY}">`)
          const out = await server.transformIndexHtml(req.url ?? '/', html)
          res.writeHead(200, {'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store'})
          res.end(out)
        } catch (error) {
          next()
          void error
        }
      })
    },
  }

  const server = await vite.createServer({
    configFile: false,
    envFile: false,
    root,
    cacheDir: join(root, '.vite'),
    appType: 'custom',
    logLevel: 'silent',
    clearScreen: false,
    publicDir: false,
    optimizeDeps: {noDiscovery: true, include: engine === 'react' ? ['react', 'react-dom/client', 'react/jsx-dev-runtime'] : []},
    server: {port: options.port ?? 5173, host: options.host ?? '127.0.0.1', strictPort: false, hmr: {overlay: true},
      fs: {strict: true, allow: [root, loaded.dir, modules]}},
    plugins: [svcPlugin, ...plugins] as any,
  } as any)
  await server.listen()
  const address = server.httpServer?.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  const host = options.host ?? '127.0.0.1'
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    async close() {
      clearTimeout(pushTimer)
      await pushing
      await server.close()
      await rm(root, {recursive: true, force: true})
    },
  }
}
