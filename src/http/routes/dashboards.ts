import type {Context, MiddlewareHandler} from 'hono'
import type {Principal} from '../../core/auth/permissions.js'
import {svcMessage} from '../../core/contract/messages.js'
import {dashboardRoutes as routes} from '../../core/contract/routes.js'
import {DashboardPatchBody, type DashboardView, type LayoutItem, type SelectionTarget} from '../../core/contract/dashboards.js'
import {canView, changeRefusal, isEditable, tileAvailable, tileRefusal, type Viewer, visibleLayout} from '../../core/dashboards/access.js'
import {patchRules, pathId} from '../../core/dashboards/input.js'
import {builtinLayout, normalizeLayout} from '../../core/dashboards/layout.js'
import {appIdOf, appTile, type DashboardContext, DEFAULT_CONTEXT, defaultConfig, publicSettings, tileDef, TILES} from '../../core/dashboards/tiles.js'
import {dashboardEtag, ifMatchCheck} from '../../core/etag.js'
import {FieldErrorBag, forbidden, notFound, validation} from '../../core/errors.js'
import type {DashboardRecord} from '../../store/dashboards/types.js'
import {createRouter, handle, param, queryErrorsAsFields, slot, validationError} from '../router.js'
import type {AppEnv, Deps} from '../env.js'
import {jsonObject} from '../middleware/body.js'
import {requireUser} from '../middleware/auth.js'

/** What the current request needs to judge tiles and dashboards: the user, the account's modules and active apps. */
interface Caller extends Viewer {
  user: Principal
  appNames: Map<string, string>
}

/** The caller, loaded once per request by `who`; the dashboard of `:id`, loaded by `visible`. */
const caller = slot<Caller>('dashboardCaller')
const loaded = slot<DashboardRecord>('dashboard')

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * `/toolkit/dashboards...` of platform-api.md: CRUD, per-user selection, `widgets.json` and
 * `widget.json`. They answer whether or not the account has the `toolkit` module. Every route
 * runs `who` (401, then the account's modules and active apps); those of `:id` run `visible`
 * (404 for a foreign, hidden or unknown one) and the writes `changeable` (403). Bodies and queries
 * are checked by the route's schemas (core/contract/dashboards.ts); the queries answer a 422
 * field map (`queryErrorsAsFields`), as they always have.
 */
export function dashboardsRoutes(deps: Deps) {
  const repo = deps.store.dashboards
  const app = createRouter()
  queryErrorsAsFields(routes.listDashboards, routes.getWidgets, routes.getWidget)

  const who: MiddlewareHandler<AppEnv> = async (c, next) => {
    const user = requireUser(c)
    const account = await deps.store.accounts.getAccount(user.accountId)
    if (!account) throw notFound()
    const apps = await repo.activeApps(user.accountId)
    const appNames = new Map(apps.map((a) => [a.id, a.name]))
    caller.set(c, {user, modules: account.settings.modules, isActiveApp: (id) => appNames.has(id), appNames})
    await next()
  }

  /** A dashboard of the account the caller may see; another user's personal one is a 404 like a missing one. */
  const visible: MiddlewareHandler<AppEnv> = async (c, next) => {
    const user = caller.get(c).user
    const id = pathId(param(c, 'id'))
    const d = id === null ? null : await repo.get(user.accountId, id)
    if (!d || !canView(user, d)) throw notFound('dashboard not found')
    loaded.set(c, d)
    await next()
  }

  const mayChange = (who: Caller, shared: boolean): void => {
    const refusal = changeRefusal(who.user, who.modules, shared)
    if (refusal) throw forbidden(refusal)
  }

  /** Like `visible`, and the caller may change it (rule 3: a company dashboard needs `account`), else 403. */
  const changeable: MiddlewareHandler<AppEnv> = async (c, next) => {
    mayChange(caller.get(c), loaded.get(c).shared)
    await next()
  }

  /**
   * A PATCH against the stored dashboard (`context`/`shared` set at creation, `is_default` of a
   * personal one): when it breaks a rule, one 422 names those fields and whatever the schema says of
   * the others (`{context, shared, name}` together). Otherwise the route's schema checks the body.
   */
  const fixedMembers: MiddlewareHandler<AppEnv> = async (c, next) => {
    const body = await jsonObject(c)
    const rules = isObject(body.dashboard) ? patchRules(body.dashboard, loaded.get(c)) : null
    if (!rules) return next()
    const errors = new FieldErrorBag()
    const parsed = await DashboardPatchBody.safeParseAsync(body, {error: svcMessage})
    if (!parsed.success) {
      const schemaError = validationError('json', parsed.error.issues, DashboardPatchBody)
      if (schemaError.status !== 422) throw schemaError
      for (const [field, messages] of Object.entries(schemaError.details as Record<string, string[]>)) for (const m of messages) errors.add(field, m)
    }
    for (const [field, messages] of Object.entries(rules)) for (const m of messages) errors.add(field, m)
    throw validation(errors.fields)
  }

  /** The dashboard object of decisions.md; the layout is filtered to the viewer's tiles unless they may edit it. */
  function present(who: Caller, d: DashboardRecord): DashboardView {
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

  /** A dashboard answer with the ETag of its stored version (docs/api.md "ETag and If-Match"). */
  const tagged = (c: Context, who: Caller, d: DashboardRecord, status: 200 | 201 = 200) => {
    c.header('ETag', dashboardEtag(d))
    return json(c, present(who, d), status)
  }
  /** The write's If-Match, checked by the store inside its write; the 412 shows the dashboard as this caller sees it. */
  const ifMatch = (c: Context<AppEnv>) => ifMatchCheck(c.req.header('if-match'), 'dashboard', dashboardEtag, (d: DashboardRecord) => present(caller.get(c), d))

  const selectionValue = (s: SelectionTarget) => (s.kind === 'dashboard' ? s.id : s.kind === 'builtin' ? 'builtin' : '')
  const json = (c: Context, value: unknown, status: 200 | 201 = 200) => c.json(value, status)

  handle(app, routes.listDashboards, who, async (c, {query}) => {
    const who = caller.get(c)
    const list = await repo.listVisible(who.user.accountId, who.user.id, query.context)
    return json(c, list.map((d) => present(who, d)))
  })

  handle(app, routes.createDashboard, who, async (c, {body}) => {
    const who = caller.get(c)
    const input = body.dashboard
    mayChange(who, input.shared)
    // Without a layout, the standard one of the context (for a personal dashboard, only the tiles its author can use).
    const layout = normalize(who, input.layout ?? builtinLayout(input.context), input.shared)
    const created = await repo.create(who.user.accountId, who.user.id, {
      name: input.name, context: input.context, layout, shared: input.shared, is_default: input.is_default,
    })
    return tagged(c, who, created, 201)
  })

  // The fixed paths before `{id}.json`, which would match them too.
  handle(app, routes.selectDashboard, who, async (c, {body: {context: given, target}}) => {
    const who = caller.get(c)
    let context: DashboardContext = given ?? DEFAULT_CONTEXT
    if (target.kind === 'dashboard') {
      const d = await repo.get(who.user.accountId, target.id)
      if (!d || !canView(who.user, d)) throw notFound('dashboard not found')
      if (given && d.context !== given) throw validation({dashboard_id: [`belongs to context "${d.context}", not "${given}"`]})
      context = d.context
    }
    if (!(await repo.setSelection(who.user.accountId, who.user.id, context, target))) throw notFound('dashboard not found')
    const {selection, answer} = await resolve(who, context)
    return json(c, {context, dashboard_id: selectionValue(selection), ...answer})
  })

  handle(app, routes.getWidgets, who, async (c, {query}) => {
    const {answer} = await resolve(caller.get(c), query.context ?? DEFAULT_CONTEXT)
    return json(c, answer)
  })

  /** The catalogue with the availability rules in words; app tiles for the account's apps marked `dashboard_widget`. */
  handle(app, routes.listTiles, who, async (c) => {
    const who = caller.get(c)
    const apps = await deps.store.apps.list(who.user.accountId)
    const tiles = TILES.map((t) => ({key: t.key, name: t.name, default_size: t.defaultSize, why: tileRefusal(who, t)}))
    for (const a of apps) {
      const t = appTile(a.id, a.name)
      const why = a.fields?.dashboard_widget !== true ? 'the app is not marked as a dashboard widget (dashboard_widget)' : tileRefusal(who, t)
      tiles.push({key: t.key, name: t.name, default_size: t.defaultSize, why})
    }
    return json(c, tiles.map((t) => ({...t, available: t.why === null})))
  })

  handle(app, routes.getWidget, who, async (c, {query: {key}}) => {
    const who = caller.get(c)
    const appId = appIdOf(key)
    const tile = appId ? appTile(appId, who.appNames.get(appId)) : tileDef(key)
    if (!tile || !tileAvailable(who, tile)) throw notFound('tile not available')
    return json(c, {key: tile.key, name: tile.name, settings: publicSettings(tile), config: defaultConfig(tile)})
  })

  handle(app, routes.getDashboard, who, visible, async (c) => tagged(c, caller.get(c), loaded.get(c)))

  handle(app, routes.updateDashboard, who, visible, changeable, fixedMembers, async (c, {body: {dashboard: patch}}) => {
    const who = caller.get(c)
    const current = loaded.get(c)
    const updated = await repo.update(who.user.accountId, current.id, {
      name: patch.name,
      is_default: patch.is_default,
      layout: patch.layout === undefined ? undefined : normalize(who, patch.layout, current.shared),
    }, ifMatch(c))
    if (!updated) throw notFound('dashboard not found')
    return tagged(c, who, updated)
  })

  handle(app, routes.deleteDashboard, who, visible, changeable, async (c) => {
    const who = caller.get(c)
    if (!(await repo.delete(who.user.accountId, loaded.get(c).id, ifMatch(c)))) throw notFound('dashboard not found')
    return c.body(null, 204)
  })

  return app
}
