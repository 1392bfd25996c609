import {createHash} from 'node:crypto'
import type {Context, MiddlewareHandler} from 'hono'
import {assetType} from '../../core/apps/assets.js'
import {appData, appView, normalizeUrlCode, UUID_RE} from '../../core/apps/validate.js'
import {replaceInFields} from '../../core/apps/replace.js'
import {AppPatch} from '../../core/contract/apps.js'
import {svcMessage} from '../../core/contract/messages.js'
import {appRoutes as routes} from '../../core/contract/routes.js'
import {replaceText} from '../../core/replace.js'
import {badRequest, notFound, validation} from '../../core/errors.js'
import {quotasOf, sizeText} from '../../core/quotas.js'
import {appEtag, ifMatchCheck, writeOnVersion} from '../../core/etag.js'
import type {AppData, AppRecord} from '../../store/apps/types.js'
import type {AppEnv, Deps} from '../env.js'
import {allowedTo, requireCan, requireUser, userRequired} from '../middleware/auth.js'
import {createRouter, handle, param, slot, validationError} from '../router.js'
import {appPagesRoutes} from './apps/pages.js'
import {engineFacts} from '../../engines/index.js'

/** The app of `:id`, loaded once by `visible` for every route with an app in its path. */
const loaded = slot<AppRecord>('app')

/**
 * Routes of the apps area (platform-api.md "Apps"): CRUD and replace under /svc/apps, served from
 * the contract (src/core/contract/routes.ts `appRoutes`: bodies checked by the schemas of
 * src/core/contract/apps.ts before a handler runs). The pages under /a/ (apps/pages.ts) and the app
 * origins (src/http/app-origin/) answer HTML and redirects: they stay plain Hono handlers,
 * described in the document from `pageRoutes`.
 */
export function appsRoutes(deps: Deps) {
  const app = createRouter()
  const apps = deps.store.apps
  const buildFor: Deps['services']['builds']['buildFor'] = (...args) => deps.services.builds.buildFor(...args)
  /** A source saved as written that a browser would refuse (js): said in `X-Svc-Warning`, never refused. */
  const warn = async (c: Context<AppEnv>, input: Pick<AppData, 'app_engine' | 'source_code'>) => {
    const warning = await deps.services.builds.warningFor(input)
    if (warning) c.header('X-Svc-Warning', warning)
  }

  /** Reading apps: a signed-in user; writing: the roles table's `app.write` (src/core/auth/permissions.ts). */
  const reader = userRequired
  const writer = allowedTo('app.write')
  /** Loads the app of `:id` of the user's account, else 404 (foreign, unknown or not a UUID alike). */
  const visible: MiddlewareHandler<AppEnv> = async (c, next) => {
    const user = requireUser(c)
    const id = param(c, 'id')
    const found = UUID_RE.test(id) ? await apps.get(user.accountId, id.toLowerCase()) : null
    if (!found) throw notFound('app not found')
    loaded.set(c, found)
    await next()
  }

  /** A url_code derived from the name, unique in the account (`name`, `name-2`, ...). */
  async function uniqueUrlCode(accountId: number, name: string, exceptId?: string): Promise<string> {
    let base = normalizeUrlCode(name) || 'app'
    if (UUID_RE.test(base)) base = `app-${base}`.slice(0, 100)
    for (let i = 1; i < 10_000; i++) {
      const candidate = i === 1 ? base : `${base.slice(0, 95)}-${i}`
      if (!(await apps.urlCodeTaken(accountId, candidate, exceptId))) return candidate
    }
    throw badRequest('cannot find a free url_code; give one')
  }

  /** An app answer with its ETag (docs/api.md "ETag and If-Match"). */
  const tagged = (c: Context, record: AppRecord, status: 200 | 201 = 200) => {
    const view = appView(record)
    c.header('ETag', appEtag(view))
    return c.json(view, status)
  }
  const tagOf = (a: AppRecord) => appEtag(appView(a))
  /** A check of `header` (If-Match, or the tag a merge was made on): a 412 with the stored app's view when it no longer matches. */
  const checkFor = (header: string | undefined) => ifMatchCheck(header, 'app', tagOf, appView)
  const ifMatch = (c: Context) => checkFor(c.req.header('if-match'))

  /**
   * Stores the write `merge` makes of a version of the app (compiled as needed) and answers the
   * full app with `X-Svc-Build`. The write applies to that version only (docs/api.md "ETag and
   * If-Match"): with If-Match, the client's tag is checked before the compile (no compile for a
   * write that cannot apply) and again inside the store's write (the app may change while it
   * compiles), a 412; without, a change made in between has the app reloaded and merged again.
   * A retry compiles nothing twice: a build of the same source is taken from the cache by its hash.
   */
  async function update(c: Context<AppEnv>, merge: (current: AppRecord) => Promise<AppData> | AppData) {
    const user = requireCan(c, 'app.write')
    const id = loaded.get(c).id
    let status = ''
    let written: AppData | undefined
    const updated = await writeOnVersion({
      ifMatch: c.req.header('if-match'),
      what: 'app',
      loaded: loaded.get(c),
      tagOf,
      checkFor: (header) => checkFor(header)!,
      reload: async () => {
        const again = await apps.get(user.accountId, id)
        if (!again) throw notFound('app not found')
        return again
      },
      write: async (current, check) => {
        check(current)
        const input = await merge(current)
        written = input
        const built = await buildFor(input, user.accountId, current)
        // "compiled" says this request compiled, even when its retry then found the build cached.
        if (status !== 'compiled') status = built.status
        return apps.update(user.accountId, id, user.id, input, built.build, check)
      },
    })
    c.header('X-Svc-Build', status)
    if (written) await warn(c, written)
    return tagged(c, updated)
  }

  handle(app, routes.listApps, reader, async (c, {query}) => {
    const user = requireUser(c)
    const list = await apps.list(user.accountId, {q: query.q, app_engine: query.app_engine, active: query.active})
    return c.json(list.map(appView))
  })

  handle(app, routes.listEngines, reader, async (c) => c.json(engineFacts()))

  handle(app, routes.getApp, visible, async (c) => tagged(c, loaded.get(c)))

  handle(app, routes.createApp, writer, async (c, {body}) => {
    const user = requireCan(c, 'app.write')
    const {input, urlCodeFromName} = appData(body.app)
    if (urlCodeFromName) input.url_code = await uniqueUrlCode(user.accountId, input.name)
    else if (await apps.urlCodeTaken(user.accountId, input.url_code)) throw validation({url_code: ['has already been taken']})
    const {build, status} = await buildFor(input, user.accountId)
    const created = await apps.create(user.accountId, user.id, input, build)
    c.header('X-Svc-Build', status)
    await warn(c, input)
    return tagged(c, created, 201)
  })

  handle(app, routes.updateApp, writer, visible, async (c, {body}) => {
    return update(c, async (current) => {
      const {input, urlCodeFromName} = appData(body.app, current)
      if (urlCodeFromName) input.url_code = await uniqueUrlCode(current.account_id, input.name, current.id)
      return input
    })
  })

  /** The edited member is checked again by the PATCH schema (a replace may blank the source or overflow a length). */
  handle(app, routes.replaceInApp, writer, visible, async (c, {body: req}) => {
    return update(c, (current) => {
      const patch: Record<string, unknown> = {}
      if (req.field === 'source_code') patch.source_code = replaceText(current.source_code, req)
      else if (req.field === 'prompt') patch.prompt = replaceText(current.prompt ?? '', req)
      else patch.fields = replaceInFields(current.fields, req)
      const parsed = AppPatch.safeParse(patch, {error: svcMessage})
      if (!parsed.success) throw validationError('json', parsed.error.issues)
      return appData(parsed.data, current).input
    })
  })

  handle(app, routes.deleteApp, writer, visible, async (c) => {
    if (!(await apps.delete(loaded.get(c).account_id, loaded.get(c).id, ifMatch(c)))) throw notFound('app not found')
    return c.body(null, 204)
  })

  const quotas = quotasOf(deps.quotas)
  handle(app, routes.listAppAssets, visible, async (c) => c.json(await apps.listAssets(loaded.get(c).id)))

  /** An asset: a path the app origin can serve, a known type, base64 bytes within the quotas (422 under `path` or `data_base64`). */
  handle(app, routes.putAppAsset, writer, visible, async (c, {body: {asset}}) => {
    const kind = assetType(asset.path)
    if ('error' in kind) throw validation({path: [kind.error]})
    const data = Buffer.from(asset.data_base64, 'base64')
    if (data.toString('base64') !== asset.data_base64.replace(/\s+/g, '')) throw validation({data_base64: ['is not valid base64']})
    if (data.length > quotas.app_asset_bytes) {
      throw validation({data_base64: [`is ${sizeText(data.length)}; an asset may be at most ${sizeText(quotas.app_asset_bytes)} (app_asset_bytes)`]})
    }
    const stored = {path: asset.path, content_type: kind.type, size: data.length, sha256: createHash('sha256').update(data).digest('hex'),
      updated_at: new Date().toISOString().replace('Z', '+00:00')}
    const app = loaded.get(c)
    if (!(await apps.putAsset(app.id, {...stored, data}, {maxTotal: quotas.app_assets_bytes, maxCount: quotas.app_assets_count}))) {
      throw validation({data_base64: [`the app's assets may hold at most ${quotas.app_assets_count} files and ${sizeText(quotas.app_assets_bytes)} ` +
        '(app_assets_count, app_assets_bytes); delete some first']})
    }
    return c.json(stored)
  })

  handle(app, routes.deleteAppAsset, writer, visible, async (c, {query}) => {
    if (!(await apps.deleteAsset(loaded.get(c).id, query.path))) throw notFound('asset not found')
    return c.body(null, 204)
  })

  app.route('/', appPagesRoutes(deps))
  return app
}
