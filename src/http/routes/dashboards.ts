import {type Context, Hono, type MiddlewareHandler} from 'hono'
import {canView, changeRefusal, isEditable, tileAvailable, type Viewer, visibleLayout} from '../../core/dashboards/access.js'
import {parseContext, parseCreate, parseId, parseSelect, parseUpdate} from '../../core/dashboards/input.js'
import {builtinLayout, type LayoutItem, normalizeLayout} from '../../core/dashboards/layout.js'
import {appIdOf, appTile, type DashboardContext, defaultConfig, publicSettings, tileDef} from '../../core/dashboards/tiles.js'
import {forbidden, notFound, validation} from '../../core/errors.js'
import type {Principal} from '../../core/auth/permissions.js'
import type {DashboardRecord, Selection} from '../../store/dashboards/types.js'
import type {AppEnv, Deps} from '../env.js'
import {requireUser} from '../middleware/auth.js'
import {envelope, jsonObject} from '../middleware/body.js'

/** What the current request needs to judge tiles and dashboards: the user, the account's modules and active apps. */
interface Caller extends Viewer {
  user: Principal
  appNames: Map<string, string>
}

/**
 * `/toolkit/dashboards...` of platform-api.md: CRUD, per-user selection, `widgets.json` and
 * `widget.json`. They answer whether or not the account has the `toolkit` module.
 */
export function dashboardsRoutes(deps: Deps) {
  const repo = deps.store.dashboards
  const app = new Hono<AppEnv>()

  async function caller(c: Context<AppEnv>): Promise<Caller> {
    const user = requireUser(c)
    const account = await deps.store.accounts.getAccount(user.accountId)
    if (!account) throw notFound()
    const apps = await repo.activeApps(user.accountId)
    const appNames = new Map(apps.map((a) => [a.id, a.name]))
    return {user, modules: account.settings.modules, isActiveApp: (id) => appNames.has(id), appNames}
  }

  /** The dashboard object of decisions.md; the layout is filtered to the viewer's tiles unless they may edit it. */
  function present(who: Caller, d: DashboardRecord) {
    const editable = isEditable(who.user, who.modules, d)
    return {
      id: d.id,
      name: d.name,
      context: d.context,
      layout: editable ? d.layout : visibleLayout(who, d.layout),
      shared: d.shared,
      is_default: d.is_default,
      editable,
      created_by_id: d.created_by_id,
      updated_at: d.updated_at,
    }
  }

  /** Rule 2: a personal dashboard keeps only tiles its author can use; a company one any tile. */
  function normalize(who: Caller, layout: unknown[], shared: boolean): LayoutItem[] {
    return normalizeLayout(layout, {
      isAllowedApp: who.isActiveApp,
      isAvailable: shared ? undefined : (tile) => tileAvailable(who, tile),
    })
  }

  /** A dashboard of the account the caller may see; another user's personal one is a 404 like a missing one. */
  async function visible(who: Caller, idParam: string): Promise<DashboardRecord> {
    const match = /^(.+)\.json$/.exec(idParam)
    const id = match ? parseId(match[1]) : null
    const d = id === null ? null : await repo.get(who.user.accountId, id)
    if (!d || !canView(who.user, d)) throw notFound('dashboard not found')
    return d
  }

  function mayChange(who: Caller, shared: boolean): void {
    const refusal = changeRefusal(who.user, who.modules, shared)
    if (refusal) throw forbidden(refusal)
  }

  /** The shown dashboard of a context: the selection, then the company default, then the standard layout. */
  async function resolve(who: Caller, context: DashboardContext) {
    const selection = await repo.getSelection(who.user.accountId, who.user.id, context)
    let shown: DashboardRecord | null = null
    if (selection.kind === 'dashboard') shown = await repo.get(who.user.accountId, selection.id)
    if (shown && (!canView(who.user, shown) || shown.context !== context)) shown = null
    if (!shown && selection.kind !== 'builtin') shown = await repo.companyDefault(who.user.accountId, context)
    const dashboards = await repo.listVisible(who.user.accountId, who.user.id, context)
    return {
      selection,
      answer: {
        current_id: shown ? shown.id : ('builtin' as const),
        layout: visibleLayout(who, shown ? shown.layout : builtinLayout(context)),
        dashboards: dashboards.map((d) => ({id: d.id, name: d.name, shared: d.shared, is_default: d.is_default})),
      },
    }
  }

  // The spec's content type for these endpoints, errors included (only these paths: the router is mounted at /).
  const charset: MiddlewareHandler<AppEnv> = async (c, next) => {
    await next()
    if (c.res.headers.get('content-type') === 'application/json') c.res.headers.set('content-type', 'application/json; charset=utf-8')
  }
  app.use('/toolkit/dashboards.json', charset)
  app.use('/toolkit/dashboards/*', charset)

  const selectionValue = (s: Selection) => (s.kind === 'dashboard' ? s.id : s.kind === 'builtin' ? 'builtin' : '')

  app.get('/toolkit/dashboards.json', async (c) => {
    const who = await caller(c)
    const contextQuery = c.req.query('context')
    const context = contextQuery === undefined || contextQuery === '' ? undefined : parseContext(contextQuery)
    const list = await repo.listVisible(who.user.accountId, who.user.id, context)
    return c.json(list.map((d) => present(who, d)))
  })

  app.post('/toolkit/dashboards.json', async (c) => {
    const who = await caller(c)
    const input = parseCreate(envelope(await jsonObject(c), 'dashboard'))
    mayChange(who, input.shared)
    // Without a layout, the standard one of the context (for a personal dashboard, only the tiles its author can use).
    const layout = normalize(who, input.layout ?? builtinLayout(input.context), input.shared)
    const created = await repo.create(who.user.accountId, who.user.id, {
      name: input.name, context: input.context, layout, shared: input.shared, is_default: input.is_default,
    })
    return c.json(present(who, created), 201)
  })

  app.patch('/toolkit/dashboards/select.json', async (c) => {
    const who = await caller(c)
    const body = await jsonObject(c)
    const {context: given, target} = parseSelect(body)
    let context: DashboardContext = given ?? 'main'
    if (target.kind === 'dashboard') {
      const d = await repo.get(who.user.accountId, target.id)
      if (!d || !canView(who.user, d)) throw notFound('dashboard not found')
      if (given && d.context !== given) throw validation({dashboard_id: [`belongs to context "${d.context}", not "${given}"`]})
      context = d.context as DashboardContext
    }
    if (!(await repo.setSelection(who.user.accountId, who.user.id, context, target))) throw notFound('dashboard not found')
    const {selection, answer} = await resolve(who, context)
    return c.json({context, dashboard_id: selectionValue(selection), ...answer})
  })

  app.get('/toolkit/dashboards/widgets.json', async (c) => {
    const who = await caller(c)
    const {answer} = await resolve(who, parseContext(c.req.query('context')))
    return c.json(answer)
  })

  app.get('/toolkit/dashboards/widget.json', async (c) => {
    const who = await caller(c)
    const key = c.req.query('key')
    if (!key) throw validation({key: ["can't be blank"]})
    const appId = appIdOf(key)
    const tile = appId ? appTile(appId, who.appNames.get(appId)) : tileDef(key)
    if (!tile || !tileAvailable(who, tile)) throw notFound('tile not available')
    return c.json({key: tile.key, name: tile.name, settings: publicSettings(tile), config: defaultConfig(tile)})
  })

  app.get('/toolkit/dashboards/:file', async (c) => {
    const who = await caller(c)
    return c.json(present(who, await visible(who, c.req.param('file'))))
  })

  app.patch('/toolkit/dashboards/:file', async (c) => {
    const who = await caller(c)
    const current = await visible(who, c.req.param('file'))
    mayChange(who, current.shared)
    const patch = parseUpdate(envelope(await jsonObject(c), 'dashboard'), current)
    const updated = await repo.update(who.user.accountId, current.id, {
      name: patch.name,
      is_default: patch.is_default,
      layout: patch.layout === undefined ? undefined : normalize(who, patch.layout, current.shared),
    })
    if (!updated) throw notFound('dashboard not found')
    return c.json(present(who, updated))
  })

  app.delete('/toolkit/dashboards/:file', async (c) => {
    const who = await caller(c)
    const current = await visible(who, c.req.param('file'))
    mayChange(who, current.shared)
    if (!(await repo.delete(who.user.accountId, current.id))) throw notFound('dashboard not found')
    return c.body(null, 204)
  })

  return app
}
