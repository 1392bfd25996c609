import {Hono, type Context} from 'hono'
import {appView, normalizeApp, normalizeUrlCode, UUID_RE, type AppEngine, type CssEngine} from '../../core/apps/validate.js'
import {parseAppReplace, replaceInFields} from '../../core/apps/replace.js'
import {replaceText} from '../../core/replace.js'
import {badRequest, forbidden, isSvcError, notFound, validation} from '../../core/errors.js'
import type {Principal} from '../../core/auth/permissions.js'
import type {AppBuild, AppInput, AppRecord} from '../../store/apps/types.js'
import type {AppEnv, Deps} from '../env.js'
import {requireCan, requireUser} from '../middleware/auth.js'
import {envelope, jsonObject} from '../middleware/body.js'
import {appPagesRoutes} from './apps/pages.js'

const ID_JSON = '/svc/apps/:file{[^/]+\\.json}'
const idOf = (c: Context) => c.req.param('file')!.replace(/\.json$/, '')

/** Writing apps: the roles table's `app.write` (src/core/auth/permissions.ts). */
const requireWriter = (c: Context<AppEnv>): Principal => requireCan(c, 'app.write')

/** Routes of the apps area: CRUD and replace under /svc/apps, pages under /a/ (apps/pages.ts). */
export function appsRoutes(deps: Deps) {
  const app = new Hono<AppEnv>()
  const apps = deps.store.apps

  async function load(user: Principal, id: string): Promise<AppRecord> {
    const found = UUID_RE.test(id) ? await apps.get(user.accountId, id.toLowerCase()) : null
    if (!found) throw notFound('app not found')
    return found
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

  /**
   * Compiles unless the stored build belongs to this exact input (same hash). When only the
   * compilers changed since (an upgrade) and the source did not, a failing recompile keeps the
   * stored build: a write of other fields never fails on a compile of an unchanged source.
   */
  async function buildFor(input: AppInput, current?: AppRecord): Promise<{build: AppBuild; status: string}> {
    const {buildHash, compileApp} = await import('../../compile/index.js')
    const compileInput = {engine: input.app_engine as AppEngine, cssEngine: input.css_engine as CssEngine, source: input.source_code}
    const stored = (): {build: AppBuild; status: string} => {
      const {build_hash: hash, app_code, css_code, app_build_time, css_build_time} = current!
      return {build: {hash, app_code, css_code, app_build_time, css_build_time}, status: 'unchanged'}
    }
    if (current && current.build_hash === buildHash(compileInput)) return stored()
    const sameSource = !!current && current.app_engine === input.app_engine && current.css_engine === input.css_engine &&
      current.source_code === input.source_code
    try {
      const {status, ...build} = await compileApp(compileInput, apps)
      return {build, status}
    } catch (error) {
      if (sameSource && isSvcError(error) && error.code === 'validation') return stored()
      throw error
    }
  }

  app.get('/svc/apps.json', async (c) => {
    const user = requireUser(c)
    const q = c.req.query('q')
    const engine = c.req.query('app_engine')
    const active = c.req.query('active')
    if (active !== undefined && !['true', 'false'].includes(active)) throw badRequest('active must be true or false')
    const list = await apps.list(user.accountId, {q: q || undefined, app_engine: engine || undefined, active: active === undefined ? undefined : active === 'true'})
    return c.json(list.map(appView))
  })

  app.get(ID_JSON, async (c) => {
    const user = requireUser(c)
    return c.json(appView(await load(user, idOf(c))))
  })

  app.post('/svc/apps.json', async (c) => {
    const user = requireWriter(c)
    const body = envelope(await jsonObject(c), 'app')
    const {input, urlCodeFromName} = normalizeApp(body)
    if (urlCodeFromName) input.url_code = await uniqueUrlCode(user.accountId, input.name)
    else if (await apps.urlCodeTaken(user.accountId, input.url_code)) throw validation({url_code: ['has already been taken']})
    const {build, status} = await buildFor(input)
    const created = await apps.create(user.accountId, user.id, input, build)
    c.header('X-Svc-Build', status)
    return c.json(appView(created), 201)
  })

  app.patch(ID_JSON, async (c) => {
    const user = requireWriter(c)
    const current = await load(user, idOf(c))
    const body = envelope(await jsonObject(c), 'app')
    const {input, urlCodeFromName} = normalizeApp(body, current)
    if (urlCodeFromName) input.url_code = await uniqueUrlCode(user.accountId, input.name, current.id)
    const {build, status} = await buildFor(input, current)
    const updated = await apps.update(user.accountId, current.id, user.id, input, build)
    c.header('X-Svc-Build', status)
    return c.json(appView(updated))
  })

  app.patch('/svc/apps/:id/replace.json', async (c) => {
    const user = requireWriter(c)
    const current = await load(user, c.req.param('id'))
    const req = parseAppReplace(await jsonObject(c))
    const patch: Record<string, unknown> = {}
    if (req.field === 'source_code') patch.source_code = replaceText(current.source_code, req)
    else if (req.field === 'prompt') patch.prompt = replaceText(current.prompt ?? '', req)
    else patch.fields = replaceInFields(current.fields, req)
    const {input} = normalizeApp(patch, current)
    const {build, status} = await buildFor(input, current)
    const updated = await apps.update(user.accountId, current.id, user.id, input, build)
    c.header('X-Svc-Build', status)
    return c.json(appView(updated))
  })

  app.delete(ID_JSON, async (c) => {
    const user = requireWriter(c)
    const current = await load(user, idOf(c))
    await apps.delete(user.accountId, current.id)
    return c.body(null, 204)
  })

  app.route('/', appPagesRoutes(deps))
  return app
}
