import {Hono, type Context} from 'hono'
import {refusal, type Principal} from '../../core/auth/permissions.js'
import {forbidden, notFound} from '../../core/errors.js'
import type {PromptSources, RenderedPrompt, TokenChoice} from '../../core/prompts/render-by-code.js'
import {toView, viewerOf, type PromptRecord} from '../../core/prompts/types.js'
import {isUuid} from '../../core/prompts/uuid.js'
import {listFilters, mayChange, promptData} from '../../core/prompts/validate.js'
import {findSystemFile, listSystemFiles} from '../../store/prompts/system-files.js'
import type {AppEnv, Deps} from '../env.js'
import {requireCan, requireUser} from '../middleware/auth.js'
import {envelope, jsonObject} from '../middleware/body.js'

const JSON_TYPE = 'application/json; charset=utf-8'
const MARKDOWN_TYPE = 'text/markdown; charset=utf-8'

/** Request headers of the render endpoint (the CLI sends them). */
export const STRICT_HEADER = 'x-svc-strict'
/** Embedded backend only: a token the CLI was given to render as TOKEN (checked against the acting user). */
export const TOKEN_HEADER = 'x-svc-token'

const json = (c: Context, value: unknown, status: 200 | 201 = 200) => c.body(JSON.stringify(value), status, {'Content-Type': JSON_TYPE})
const markdown = (c: Context, text: string, headers: Record<string, string> = {}) =>
  c.body(text, 200, {'Content-Type': MARKDOWN_TYPE, 'Cache-Control': 'no-store', ...headers})

/** `name.ext` of a path segment, or null when the extension differs. */
function stem(file: string, ext: string): string | null {
  return file.endsWith(ext) ? file.slice(0, -ext.length) : null
}

/** ACCOUNT_URL: the configured public URL, else the request's origin; never a trailing slash. */
function accountUrl(deps: Deps, c: Context): string {
  return (deps.publicUrl || new URL(c.req.url).origin).replace(/\/+$/, '')
}

/**
 * TOKEN: the request's bearer token. The embedded backend has none: it may pass a token the CLI
 * was given (`X-Svc-Token`, honoured only in-process and only when it is the acting user's own);
 * otherwise, and for a browser session, a visible placeholder is rendered (never the session key).
 */
async function tokenFor(deps: Deps, c: Context<AppEnv>, user: Principal): Promise<TokenChoice> {
  const bearer = c.get('token')
  if (c.get('authVia') === 'bearer' && bearer) return {token: bearer, source: 'bearer'}
  const given = c.get('authVia') === 'embedded' ? c.req.header(TOKEN_HEADER) : undefined
  const {givenOrPlaceholder} = await import('../../core/prompts/render-by-code.js')
  return givenOrPlaceholder(given, user, (token) => deps.store.accounts.authenticate(token))
}

/** The explain headers of a render (the CLI's `--explain` reads them). */
function renderHeaders(r: RenderedPrompt): Record<string, string> {
  const headers: Record<string, string> = {
    'X-Svc-Prompt-Source': r.layer,
    'X-Svc-Prompt-Extra': r.extraLayer ? '1' : '0',
    'X-Svc-Prompt-Token': r.tokenSource,
  }
  if (r.promptId) headers['X-Svc-Prompt-Id'] = r.promptId
  if (r.extraLayer) headers['X-Svc-Prompt-Extra-Source'] = r.extraLayer
  return headers
}

/** Routes of the prompts area (platform-api.md "Prompts"). */
export function promptsRoutes(deps: Deps) {
  const app = new Hono<AppEnv>()
  const repo = deps.store.prompts

  /** A prompt the user can see, else 404 (foreign, hidden, unknown or not a UUID alike). */
  async function visible(user: Principal, id: string): Promise<PromptRecord> {
    const record = isUuid(id) ? await repo.get(viewerOf(user), id) : null
    if (!record) throw notFound('prompt not found')
    return record
  }

  async function changeable(user: Principal, id: string): Promise<PromptRecord> {
    const record = await visible(user, id)
    if (!mayChange(user, record)) throw forbidden('only its creator or an admin may change this prompt')
    return record
  }

  /** The validated prompt of a write, Liquid syntax included (liquidjs loaded only here). */
  async function validated(c: Context<AppEnv>, user: Principal, existing?: PromptRecord) {
    const input = envelope(await jsonObject(c), 'prompt')
    const {templateError} = await import('../../core/prompts/render.js')
    return promptData(input, user, existing, templateError)
  }

  /** Stored prompts and system files, as the cascade of the render endpoint reads them. */
  const sources: PromptSources = {
    byCodes: (viewer, codes) => repo.byCodes(viewer, codes),
    systemFile: async (code) => (await findSystemFile(deps.systemPromptsDirs, code))?.content ?? null,
  }

  app.get('/svc/prompts.json', async (c) => {
    const user = requireUser(c)
    const records = await repo.list(viewerOf(user), listFilters(c.req.query()))
    return json(c, records.map(toView))
  })

  /** The roles table: prompts need `prompt.write`, account-wide ones `prompt.write_account` (src/core/auth/permissions.ts). */
  const mayWriteScope = (user: Principal, scope: string) => {
    const why = scope === 'account' ? refusal(user, 'prompt.write_account') : null
    if (why) throw forbidden(`${why} for an account-wide prompt`)
  }

  app.post('/svc/prompts.json', async (c) => {
    const user = requireCan(c, 'prompt.write')
    const data = await validated(c, user)
    mayWriteScope(user, data.scope)
    return json(c, toView(await repo.create(user.accountId, user.id, data)), 201)
  })

  /** Not in platform-api.md: the system prompt files the server has (code, kind, name, placeholder, source). */
  app.get('/svc/prompts/system.json', async (c) => {
    requireUser(c)
    return json(c, await listSystemFiles(deps.systemPromptsDirs))
  })

  app.get('/svc/prompts/system/:file', async (c) => {
    requireUser(c)
    const code = stem(c.req.param('file'), '.md')
    const file = code === null ? null : await findSystemFile(deps.systemPromptsDirs, code)
    if (!file) throw notFound('system prompt not found')
    return markdown(c, file.content, {'X-Svc-Prompt-Kind': file.kind})
  })

  app.get('/svc/prompts/:file', async (c) => {
    const user = requireUser(c)
    const file = c.req.param('file')
    const jsonId = stem(file, '.json')
    if (jsonId !== null) return json(c, toView(await visible(user, jsonId)))
    const mdId = stem(file, '.md')
    if (mdId !== null) return markdown(c, (await visible(user, mdId)).content)
    throw notFound()
  })

  app.patch('/svc/prompts/:file', async (c) => {
    const user = requireCan(c, 'prompt.write')
    const id = stem(c.req.param('file'), '.json')
    if (id === null) throw notFound()
    const existing = await changeable(user, id)
    mayWriteScope(user, existing.scope)
    const data = await validated(c, user, existing)
    mayWriteScope(user, data.scope)
    const updated = await repo.update(user.accountId, existing.id, data)
    if (!updated) throw notFound('prompt not found')
    return json(c, toView(updated))
  })

  app.delete('/svc/prompts/:file', async (c) => {
    const user = requireCan(c, 'prompt.write')
    const id = stem(c.req.param('file'), '.json')
    if (id === null) throw notFound()
    const existing = await changeable(user, id)
    mayWriteScope(user, existing.scope)
    if (!(await repo.delete(user.accountId, existing.id))) throw notFound('prompt not found')
    return c.body(null, 204)
  })

  app.get('/svc/prompt/:file', async (c) => {
    const user = requireUser(c)
    const code = stem(c.req.param('file'), '.md')
    if (code === null) throw notFound('prompt not found')
    const {renderByCode} = await import('../../core/prompts/render-by-code.js')
    const r = await renderByCode(sources, {
      viewer: viewerOf(user),
      code,
      params: new URL(c.req.url).searchParams,
      accountUrl: accountUrl(deps, c),
      strict: c.req.header(STRICT_HEADER) === '1',
      token: () => tokenFor(deps, c, user),
    })
    return markdown(c, r.text, renderHeaders(r))
  })

  return app
}
