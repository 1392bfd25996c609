import {bodyLimit} from 'hono/body-limit'
import {notFound, payloadTooLarge} from '../core/errors.js'
import {createRouter} from './router.js'
import type {Deps} from './env.js'
import {accessLog, jsonAccessLog} from './middleware/access-log.js'
import {requestIds} from './middleware/request-id.js'
import {identify} from './middleware/auth.js'
import {journalWho} from './middleware/journal-who.js'
import {refuseCrossSiteWrites} from './middleware/cross-site-writes.js'
import {consoleCsp} from './middleware/security-headers.js'
import {securityHeaders} from './middleware/security-headers.js'
import {appOrigin} from './app-origin/routes.js'
import {appLabelOf, appsFrameSrc, parseAppsUrl} from './app-origin/hosts.js'
import {loginRoutes} from './routes/login.js'
import {mcpRoutes} from './routes/mcp.js'
import {readOnlyRequests, readOnlyTokens} from './middleware/read-only.js'
import {notFoundHandler, onError} from './middleware/errors.js'
import {accountRoutes} from './routes/account.js'
import {appsRoutes} from './routes/apps.js'
import {consoleRoutes} from './routes/console.js'
import {apiDocsRoutes} from './routes/api-docs.js'
import {healthRoutes} from './routes/health.js'
import {dashboardsRoutes} from './routes/dashboards.js'
import {dbsRoutes} from './routes/dbs.js'
import {flowsRoutes} from './routes/flows.js'
import {historyRoutes} from './routes/history.js'
import {changesRoutes} from './routes/changes.js'
import {meRoutes} from './routes/me.js'
import {userRoutes} from './routes/users.js'
import {promptsRoutes} from './routes/prompts.js'
import {eventStreams} from './sse.js'

export type {AppEnv, Deps} from './env.js'
const PUBLIC_WRITES = new Set(['create', 'update', 'delete'])
export const DEFAULT_BODY_LIMIT = 5 * 1024 * 1024

/** The whole API of platform-api.md as one Hono app, used by `svc serve` and by the embedded backend. */
export function createApp(deps: Deps) {
  if (deps.appsUrl) {
    parseAppsUrl(deps.appsUrl)
    if (!deps.publicUrl) throw new Error('--apps-url needs --public-url (the main origin apps send visitors back to)')
  }
  const app = createRouter()
  app.onError(onError(deps.log))
  app.notFound(notFoundHandler)
  // First, so it sees every answer, errors included (a 413 of the body limit too): the security
  // headers, and the charset every JSON answer names.
  // Outermost: an event stream is handed the Node response once every other middleware has set its headers.
  app.use('*', eventStreams())
  app.use('*', requestIds())
  app.use('*', securityHeaders(() => consoleCsp(appsFrameSrc(deps))))
  const maxSize = deps.bodyLimit ?? DEFAULT_BODY_LIMIT
  const streamedLimit = bodyLimit({
    maxSize,
    onError: () => {
      throw payloadTooLarge()
    },
  })
  // A declared Content-Length is checked from the header alone (Node's parser holds the body to it);
  // only a streamed body is counted by hono's bodyLimit, which has to read it up front.
  app.use('*', async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    const length = c.req.header('content-length')
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number(length) > maxSize) throw payloadTooLarge()
      return next()
    }
    return streamedLimit(c, next)
  })
  if (deps.requestLog) app.use('*', jsonAccessLog(deps.requestLog))
  else if (deps.log) app.use('*', accessLog(deps.log))
  // A path holding a NUL (`%00`) names nothing that can exist (src/core/text.ts): 404 on every
  // origin and store, before any lookup (PostgreSQL would refuse the lookup itself).
  app.use('*', async (c, next) => {
    if (/%00|\0/.test(c.req.path)) throw notFound()
    await next()
  })
  // Writes carried by a cookie come from the origin's own page, never from a navigation or another site.
  app.use('/svc/db/:db_code/:method_name', refuseCrossSiteWrites((c) => PUBLIC_WRITES.has(c.req.param('method_name') ?? '')))
  app.on('POST', '/svc/apps/:id/action/:name', refuseCrossSiteWrites(() => true))
  // On an app origin the members' writes to its db's records (src/http/app-origin/routes.ts) too.
  app.use('/svc/dbs/*', refuseCrossSiteWrites((c) => c.req.method !== 'GET' && c.req.method !== 'HEAD' && appLabelOf(c, deps) !== null))
  app.use('*', readOnlyRequests)
  app.use('*', appOrigin(deps))
  app.use('*', identify(deps))
  app.use('*', readOnlyTokens)
  app.use('*', journalWho(deps))
  // A write of this instance may be a db change a trigger waits for: the change service reads the journal now, not at its next poll.
  app.use('*', async (c, next) => {
    await next()
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.method !== 'OPTIONS' && c.res.status < 400) deps.services?.changeTriggers?.poke()
  })
  app.route('/', meRoutes(deps))
  app.route('/', accountRoutes(deps))
  app.route('/', userRoutes(deps))
  app.route('/', promptsRoutes(deps))
  app.route('/', dashboardsRoutes(deps))
  app.route('/', appsRoutes(deps))
  app.route('/', dbsRoutes(deps))
  app.route('/', flowsRoutes(deps))
  app.route('/', historyRoutes(deps))
  app.route('/', changesRoutes(deps))
  app.route('/', loginRoutes(deps))
  app.route('/', consoleRoutes())
  app.route('/', mcpRoutes(deps, app))
  app.route('/', apiDocsRoutes())
  app.route('/', healthRoutes(deps))
  return app
}

export type SvcApp = ReturnType<typeof createApp>
