/**
 * `svc app dev DIR`: a Vite dev server (HMR) over the folder's source file, in the same HTML shell
 * as `/a/`, with `window.SvcAppContext` of the backend's user. `/svc/db/*`, `/svc/apps/:id/action/*`,
 * `/svc/connector/*`, `/_svc/lib/*` and the members' records routes and feed of the app's own db
 * (`/svc/dbs/<db_code>/records…|search.json|changes`) go to the backend through `Backend.fetch` (so an
 * embedded backend is called in-process). `--push` sends the source to the backend on save (debounced).
 */
import type {IncomingMessage, ServerResponse} from 'node:http'
import {performance} from 'node:perf_hooks'
import {Client, type Backend} from '../client/backend.js'
import {membersRoute} from '../core/apps/members.js'
import {contextUser, renderShell, type ContextUser, type SvcAppContext} from '../core/apps/shell.js'
import type {AppView} from '../core/contract/apps.js'
import {isSvcError} from '../core/errors.js'
import {DEFAULT_CSS_ENGINE, devCssEngine, engineSpec, gameLibOfImport} from '../engines/index.js'
import {serveFolderAsset} from './assets.js'
import {findApp, LEGACY_PROJECT_FILE, PROJECT_FILE, projectResource, readProject, writeProject, type AppProject} from './project.js'
import {OVERLAY_MODULE, overlaySource, describeDevError} from './overlay.js'
import {devRequestRefusal} from './request-guard.js'

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
/**
 * The visitor cookie of public calls (src/http/routes/dbs/public.ts), the one cookie the deployed
 * app's page sends with its calls that the backend reads: forwarded, so each browser is its own
 * visitor (`scope_by`) as on the app's origin. Other cookies of the dev origin (127.0.0.1 shares
 * them across ports: a console session, another app's) never reach the backend.
 */
const FORWARDED_COOKIES = new Set(['svc_visitor', '__Host-svc_visitor'])

const PROVENANCE_HEADERS = ['origin', 'referer', 'sec-fetch-site', 'sec-fetch-mode', 'sec-fetch-dest', 'sec-fetch-user']

/** The forwarded part of a Cookie header (only the visitor cookie), or null. */
export function forwardedCookie(header: string | undefined): string | null {
  if (!header) return null
  const kept = header.split(';').map((pair) => pair.trim()).filter((pair) => pair.includes('=') && FORWARDED_COOKIES.has(pair.slice(0, pair.indexOf('='))))
  return kept.length ? kept.join('; ') : null
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** Forwards one request to the backend and copies the answer back. */
async function proxy(backend: Backend, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !HOP_HEADERS.has(k)) headers[k] = v
  // The page's provenance was checked against this server's own origin (request-guard.ts) before
  // the proxy: the backend, whose origin differs, is not asked again (with the visitor cookie it
  // would take the dev page for another site's).
  for (const k of PROVENANCE_HEADERS) delete headers[k]
  const cookie = forwardedCookie(req.headers.cookie)
  if (cookie) headers.cookie = cookie
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readBody(req)
  // A page that goes away (a reload, a closed tab) ends the backend's request too: a live feed is not left open.
  const gone = new AbortController()
  res.once('close', () => gone.abort())
  try {
    const answer = await backend.fetch(req.url!, {method: req.method, headers, body: body ? new Uint8Array(body) : undefined, signal: gone.signal})
    const out: Record<string, string | string[]> = {}
    answer.headers.forEach((v, k) => {
      if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'set-cookie'].includes(k)) out[k] = v
    })
    const setCookies = answer.headers.getSetCookie()
    if (setCookies.length) out['set-cookie'] = setCookies
    res.writeHead(answer.status, out)
    if (answer.body && (answer.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      // A live feed (`subscribe`, docs/realtime.md): each event is passed on as it comes, never buffered.
      res.flushHeaders()
      const reader = answer.body.getReader()
      try {
        for (;;) {
          const {done, value} = await reader.read()
          if (done || res.destroyed) break
          res.write(value)
        }
      } catch {
        // the page went away, or the backend's stream broke: the page's EventSource reconnects
      } finally {
        void reader.cancel().catch(() => {})
      }
      res.end()
      return
    }
    res.end(Buffer.from(await answer.arrayBuffer()))
  } catch (error) {
    if (res.headersSent) return void res.end()
    res.writeHead(502, {'content-type': 'application/json'})
    res.end(JSON.stringify({error: `backend unreachable: ${(error as Error).message}`}))
  }
}

/** The page's entry: the engine's mount (a component), its library and prelude (a game), or the script itself. */
function entrySource(engine: string, file: string, libUrl: (lib: {name: string; pkg: string; file: string}) => string): string {
  const report = `
if (import.meta.hot) {
  import.meta.hot.on('vite:afterUpdate', () => import.meta.hot.send('svc:updated', {}))
  import.meta.hot.send('svc:loaded', {})
}
`
  const spec = engineSpec(engine)
  if (spec.vite) return spec.vite.mountEntry(`/${file}`) + report
  if (spec.game) return `${spec.game.prelude(libUrl(spec.game.lib))}await import('/${file}')\n${report}`
  return `import '/${file}'\n${report}`
}

export async function startDevServer(options: DevOptions): Promise<DevServer> {
  const {backend, log} = options
  // A source saved with a warning (a js app a browser would refuse) says so in the terminal (once: warnAsWritten says it too).
  const client = new Client(backend, (warning) => {
    if (warning !== lastWarning) log(`warning: ${warning}`)
    lastWarning = warning
  })
  const loaded = await readProject(options.dir)
  let project: AppProject = loaded.project
  const engine = project.app_engine
  const spec = engineSpec(engine)
  const me = await client.call('getMe')
  let app: AppView | null = await findApp(client, project).catch(() => null)
  /**
   * A members' route of the db the folder's app.json declares, by its code (the records API and the
   * feed the deployed app's members call on its origin: src/core/apps/members.ts), else false.
   */
  const membersOwnDb = (method: string, path: string) => {
    const db = typeof project.db_code === 'string' ? project.db_code.trim() : ''
    return db !== '' && membersRoute(method, path) === db
  }
  // The page's context is the folder's app.json (what the next push makes the app), before the first push too.
  const context = (): SvcAppContext => ({
    user: contextUser(me),
    app: {
      id: app?.id ?? project.id ?? '', name: project.name, url_code: app?.url_code ?? project.url_code ?? '',
      db_code: typeof project.db_code === 'string' && project.db_code.trim() ? project.db_code.trim() : null,
    },
  })
  const {cssScriptUrl, libUrl} = await import('../compile/libs.js')

  // The app folder has no node_modules: Vite's root is a temp folder whose node_modules links to
  // this package's, and bare imports of the app resolve from there.
  const {packageDir} = await import('../compile/libs.js')
  const {mkdtemp, rm, symlink} = await import('node:fs/promises')
  const {basename, join, dirname, sep} = await import('node:path')
  const {tmpdir} = await import('node:os')
  const root = await mkdtemp(join(tmpdir(), 'svc-dev-'))
  const modules = dirname(packageDir('vite'))
  await symlink(modules, join(root, 'node_modules'), 'dir')
  const anchor = join(root, 'index.js')
  const vite = await import('vite')
  const plugins: unknown[] = []
  if (spec.vite) plugins.push(...(await spec.vite.plugins()))

  let changedAt: number | null = null
  let pushTimer: NodeJS.Timeout | undefined
  let pushing = Promise.resolve()

  async function pushNow(): Promise<void> {
    const current = await readProject(options.dir)
    const started = performance.now()
    try {
      const body = {app: projectResource(current, app).body}
      const saved = app
        ? await client.call('updateApp', {params: {id: app.id}, body})
        : await client.call('createApp', {body})
      if (!app || current.legacy) await writeProject(options.dir, saved)
      project = {...project, url_code: saved.url_code}
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
      if (id === OVERLAY_MODULE) return '\0svc-overlay.js'
      if (id.startsWith('/_svc/lib/')) return {id, external: true}
      const game = /^[a-z@][^:]*$/i.test(id) ? gameLibOfImport(id) : null
      if (game) return {id: libUrl(game.lib), external: true}
      if (importer && !importer.includes(`${sep}node_modules${sep}`) && /^[a-z@][^:]*$/i.test(id)) {
        return this.resolve(id, anchor, {...opts, skipSelf: true})
      }
      return null
    },
    load(id: string) {
      if (id === '\0svc-entry.js') return entrySource(engine, `@fs${loaded.sourceFile}`, libUrl)
      if (id === '\0svc-overlay.js') return overlaySource()
      return null
    },
    configureServer(server: any) {
      // Some compile errors reach the page without a failed request (the Svelte plugin reports them
      // from its hot update): every error sent to the page is also written to the terminal.
      const hot = server.environments?.client?.hot ?? server.ws
      const send = hot.send.bind(hot)
      hot.send = (payload: any, ...rest: unknown[]) => {
        if (payload?.type === 'error') logger.error(String(payload.err?.message ?? ''), {error: payload.err})
        return send(payload, ...rest)
      }
      server.ws.on('svc:updated', () => {
        if (changedAt !== null) log(`updated in ${Math.round(performance.now() - changedAt)} ms`)
        changedAt = null
        lastError = ''
      })
      server.ws.on('svc:loaded', () => {
        if (changedAt !== null) log(`updated in ${Math.round(performance.now() - changedAt)} ms (reload)`)
        changedAt = null
      })
      const projectFile = join(loaded.dir, loaded.legacy ? LEGACY_PROJECT_FILE : PROJECT_FILE)
      server.watcher.add([loaded.sourceFile, projectFile])
      const schedulePush = () => {
        if (!options.push) return
        clearTimeout(pushTimer)
        pushTimer = setTimeout(() => {
          pushing = pushing.then(pushNow)
        }, options.pushDelay ?? 300)
      }
      void warnAsWritten()
      server.watcher.on('change', (path: string) => {
        if (path === projectFile) return void projectChanged(server)
        if (path !== loaded.sourceFile) return
        changedAt = performance.now()
        void warnAsWritten()
        if (spec.page.script === 'html') server.ws.send({type: 'full-reload', path: '*'})
        schedulePush()
      })
      /**
       * app.json saved: the page is rendered again from it (name, css_engine, db_code in the
       * context), no restart; a bad file is reported and the last good one kept. A new app_engine
       * needs another Vite setup: that one asks for a restart.
       */
      const projectChanged = async (vite: any) => {
        try {
          const next = await readProjectAsSaved(options.dir)
          if (next.project.app_engine !== engine) return log(`app.json: app_engine is now ${next.project.app_engine}: restart svc app dev to use it`)
          if (next.sourceFile !== loaded.sourceFile) return log(`app.json: the source is now ${basename(next.sourceFile)}: restart svc app dev to use it`)
          project = {...next.project, url_code: app?.url_code ?? next.project.url_code}
          log('app.json changed: page reloaded')
          vite.ws.send({type: 'full-reload', path: '*'})
          schedulePush()
        } catch (error) {
          log(`app.json not applied: ${(error as Error).message}`)
        }
      }
      server.middlewares.use(async (req: IncomingMessage, res: ServerResponse, next: () => void) => {
        const path = (req.url ?? '/').split('?')[0]!
        if (PROXIED.some((re) => re.test(path)) || membersOwnDb(req.method ?? 'GET', path)) {
          // The backend gets the developer's token: only this server's own page may have it called (request-guard.ts).
          const refusal = path.startsWith('/_svc/lib/') ? null : devRequestRefusal(req.headers)
          if (!refusal) return void proxy(backend, req, res)
          res.writeHead(403, {'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store'})
          res.end(JSON.stringify({error: refusal}))
          return
        }
        if ((req.method === 'GET' || req.method === 'HEAD') && (await serveFolderAsset(loaded.dir, path, res))) return
        if (path !== '/' && path !== '/index.html') return next()
        try {
          const {readFile} = await import('node:fs/promises')
          const html = renderShell({
            engine,
            title: `${project.name} (dev)`,
            context: context(),
            scriptUrl: spec.page.script === 'html' ? undefined : ENTRY,
            html: spec.page.script === 'html' ? await readFile(loaded.sourceFile, 'utf8') : undefined,
            cssScriptUrl: cssScriptUrl(engine, devCssEngine(project.css_engine ?? DEFAULT_CSS_ENGINE)),
          }).replace('</head>', `<script type="module" src="${OVERLAY_MODULE}"></script>\n</head>`) // module scripts run in order: the overlay listens before the app loads
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

  // A source the engine serves as written (js): what a browser would refuse is said in the terminal,
  // as the server's X-Svc-Warning says it on a push (never refused). Once per distinct warning.
  let lastWarning = ''
  async function warnAsWritten(): Promise<void> {
    if (spec.compile !== 'none' || spec.page.script !== 'script') return
    const {readFile} = await import('node:fs/promises')
    const {classicScriptWarning} = await import('../compile/script.js')
    const warning = classicScriptWarning(await readFile(loaded.sourceFile, 'utf8').catch(() => ''))
    if (warning && warning !== lastWarning) log(`warning: ${warning}`)
    lastWarning = warning ?? ''
  }

  // Compile errors go to the terminal (once per distinct error) as well as to the page's overlay.
  let lastError = ''
  const logger = {
    hasWarned: false,
    info() {},
    warn() {},
    warnOnce() {},
    clearScreen() {},
    hasErrorLogged: () => false,
    error(message: string, opts?: {error?: unknown}) {
      const line = describeDevError(opts?.error, message, loaded.sourceFile)
      if (line === lastError) return
      lastError = line
      log(line)
    },
  }
  const port = options.port ?? 5173
  const server = await vite.createServer({
    configFile: false,
    envFile: false,
    root,
    cacheDir: join(root, '.vite'),
    appType: 'custom',
    logLevel: 'error',
    customLogger: logger,
    clearScreen: false,
    publicDir: false,
    optimizeDeps: {noDiscovery: true, include: [...(spec.vite?.devOptimize ?? [])]},
    // The source is parsed in its engine's language whatever its extension (`App.jsx` holding TypeScript).
    ...(spec.language === 'tsx' ? {oxc: {lang: 'tsx' as const}} : {}),
    // A port in use is an error, not a silent move to the next one; Vite's own overlay (which
    // points at a vite.config.js the folder does not have) is replaced by svc's (dev/overlay.ts).
    server: {port, host: options.host ?? '127.0.0.1', strictPort: port !== 0, hmr: {overlay: false},
      fs: {strict: true, allow: [root, loaded.dir, modules]}},
    plugins: [svcPlugin, ...plugins] as any,
  } as any)
  try {
    await server.listen()
  } catch (error) {
    await server.close().catch(() => {})
    await rm(root, {recursive: true, force: true})
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' || /already in use/i.test((error as Error).message)) {
      const {SvcError} = await import('../core/errors.js')
      throw new SvcError('usage', 0, `port ${port} is in use`, undefined, 'pass another --port, or --port 0 for a free one')
    }
    throw error
  }
  // The source and the project file are watched before the URL is given: a save right after the
  // start is seen. (Vite's watcher adds them asynchronously; on a loaded machine that can take
  // longer than the start's remaining steps.)
  await watchingFiles(server.watcher, [loaded.sourceFile, join(loaded.dir, loaded.legacy ? LEGACY_PROJECT_FILE : PROJECT_FILE)], {basename, dirname})
  const address = server.httpServer?.address()
  const boundPort = typeof address === 'object' && address ? address.port : port
  const host = options.host ?? '127.0.0.1'
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}/`,
    async close() {
      clearTimeout(pushTimer)
      await pushing
      await server.close()
      await rm(root, {recursive: true, force: true})
    },
  }
}

/**
 * Resolves once `watcher` (chokidar, as Vite gives it) watches each of `files`: chokidar lists a
 * file under its folder in getWatched() in the same step as it starts the file's fs.watch. Gives up
 * after `timeoutMs` (a file chokidar cannot watch directly is watched through its folder, and is
 * never listed): the server starts anyway, as it did before this wait.
 */
async function watchingFiles(watcher: {getWatched(): Record<string, string[]>} | undefined, files: string[],
  path: {basename(p: string): string; dirname(p: string): string}, timeoutMs = 10_000): Promise<void> {
  if (!watcher) return
  const watched = (file: string) => (watcher.getWatched()[path.dirname(file)] ?? []).includes(path.basename(file))
  const deadline = Date.now() + timeoutMs
  while (!files.every(watched) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
}

/**
 * readProject, read again a few times over 200 ms while it fails: a save empties the file before
 * writing it, and the change event can be handled in between (on a loaded machine); the write's own
 * event may then never come (the watcher drops events of a file within 5 ms of one another, and one
 * whose modification time it has already seen). A file that stays invalid is reported as before.
 */
async function readProjectAsSaved(dir: string): ReturnType<typeof readProject> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await readProject(dir)
    } catch (error) {
      if (attempt >= 4) throw error
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}
