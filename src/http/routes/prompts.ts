import type {Context, MiddlewareHandler} from 'hono'
import {refusal, type Principal} from '../../core/auth/permissions.js'
import {forbidden, isSvcError, notFound} from '../../core/errors.js'
import type {PromptSources, RenderedPrompt, TokenChoice} from '../../core/prompts/render-by-code.js'
import {promptRoutes as routes} from '../../core/contract/routes.js'
import {toView, viewerOf, type PromptRecord, type Viewer} from '../../core/prompts/types.js'
import {can} from '../../core/auth/permissions.js'
import {isUuid} from '../../core/prompts/uuid.js'
import {ifMatchCheck, promptEtag, writeOnVersion} from '../../core/etag.js'
import {listFilters, mayChange, promptData} from '../../core/prompts/validate.js'
import {findSystemFile, listSystemFiles} from '../../store/prompts/system-files.js'
import {HIDE_TOKEN_HEADER} from '../agent-headers.js'
import type {AppEnv, Deps} from '../env.js'
import {allowedTo, requireCan, requireUser} from '../middleware/auth.js'
import type {RenderInput} from '../../core/prompts/render.js'
import {createRouter, handle, param, slot} from '../router.js'

const JSON_TYPE = 'application/json; charset=utf-8'
const MARKDOWN_TYPE = 'text/markdown; charset=utf-8'

/** Request headers of the render endpoint (the CLI sends them). */
export const STRICT_HEADER = 'x-svc-strict'
/** Embedded backend only: a token the CLI was given to render as TOKEN (checked against the acting user). */
export const TOKEN_HEADER = 'x-svc-token'
/** Request header of `svc prompt render`: answer `X-Svc-Prompt-Missing` with the variables not given. */
export const MISSING_HEADER = 'x-svc-report-missing'

const json = (c: Context, value: unknown, status: 200 | 201 = 200) => c.body(JSON.stringify(value), status, {'Content-Type': JSON_TYPE})
const markdown = (c: Context, text: string, headers: Record<string, string> = {}) =>
  c.body(text, 200, {'Content-Type': MARKDOWN_TYPE, 'Cache-Control': 'no-store', ...headers})

/** ACCOUNT_URL: the configured public URL, else the request's origin; never a trailing slash. */
function accountUrl(deps: Deps, c: Context): string {
  return (deps.publicUrl || new URL(c.req.url).origin).replace(/\/+$/, '')
}

/**
 * TOKEN: the request's bearer token. The embedded backend has none: it may pass a token the CLI
 * was given (`X-Svc-Token`, honoured only in-process and only when it is the acting user's own);
 * otherwise, and for a browser session, a visible placeholder is rendered (never the session key).
 * A request that asks to hide the token (`X-Svc-Hide-Token`: an agent's, through the MCP server) gets
 * the placeholder too.
 */
async function tokenFor(deps: Deps, c: Context<AppEnv>, user: Principal): Promise<TokenChoice> {
  const hidden = c.req.header(HIDE_TOKEN_HEADER) !== undefined
  const bearer = c.get('token')
  if (!hidden && c.get('authVia') === 'bearer' && bearer) return {token: bearer, source: 'bearer'}
  const given = !hidden && c.get('authVia') === 'embedded' ? c.req.header(TOKEN_HEADER) : undefined
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
  if (r.missing.length) headers['X-Svc-Prompt-Missing'] = r.missing.join(',')
  return headers
}

/** Routes of the prompts area (platform-api.md "Prompts"); the prompt of `:id` is loaded once by `visible`/`changeable`. */
const loaded = slot<PromptRecord>('prompt')

export function promptsRoutes(deps: Deps) {
  const app = createRouter()
  const repo = deps.store.prompts
  // Renders off the event loop, one lane per account at a time (the server's render service,
  // src/services/renders/); in this process where the services render in process (the embedded CLI).
  const renderIn = (account: number) => {
    const render = deps.services.renders.render
    return render ? (input: RenderInput) => render(input, String(account)) : undefined
  }

  /** Loads the prompt of `:id` the user can see into the context, else 404 (foreign, hidden, unknown or not a UUID alike). */
  const visible: MiddlewareHandler<AppEnv> = async (c, next) => {
    const user = requireUser(c)
    const id = param(c, 'id')
    const record = isUuid(id) ? await repo.get(viewerOf(user), id) : null
    if (!record) throw notFound('prompt not found')
    loaded.set(c, record)
    await next()
  }

  /** Like `visible`, and the user may change it: its creator or an admin, else 403. */
  const changeable: MiddlewareHandler<AppEnv> = async (c, next) =>
    visible(c, async () => {
      if (!mayChange(requireUser(c), loaded.get(c))) throw forbidden('only its creator or an admin may change this prompt')
      await next()
    })


  /** Stored prompts and system files, as the cascade of the render endpoint reads them. */
  const sources: PromptSources = {
    byCodes: (viewer, codes) => repo.byCodes(viewer, codes),
    systemFile: async (code) => (await findSystemFile(deps.systemPromptsDirs, code))?.content ?? null,
  }

  handle(app, routes.listPrompts, async (c, {query}) => {
    const user = requireUser(c)
    return json(c, (await repo.list(viewerOf(user), listFilters(query))).map(toView))
  })

  /** The roles table: prompts need `prompt.write`, account-wide ones `prompt.write_account` (src/core/auth/permissions.ts). */
  const mayWriteScope = (user: Principal, scope: string) => {
    const why = scope === 'account' ? refusal(user, 'prompt.write_account') : null
    if (why) throw forbidden(`${why} for an account-wide prompt`)
  }

  /** Writes need `prompt.write` before anything is looked up. */
  const writer = allowedTo('prompt.write')

  handle(app, routes.createPrompt, writer, async (c, {body}) => {
    const user = requireCan(c, 'prompt.write')
    const data = promptData(body.prompt, user)
    mayWriteScope(user, data.scope)
    return tagged(c, await repo.create(user.accountId, user.id, data), 201)
  })

  /** Not in platform-api.md: the system prompt files the server has (code, kind, name, placeholder, source). */
  handle(app, routes.listSystemPrompts, async (c) => {
    requireUser(c)
    return json(c, await listSystemFiles(deps.systemPromptsDirs))
  })

  handle(app, routes.getSystemPrompt, async (c) => {
    requireUser(c)
    const file = await findSystemFile(deps.systemPromptsDirs, param(c, 'code'))
    if (!file) throw notFound('system prompt not found')
    return markdown(c, file.content, {'X-Svc-Prompt-Kind': file.kind})
  })

  /**
   * The user a cascade is explained or previewed for (`user`: login or id): the caller by default;
   * another user of the account only for an admin (403 otherwise); unknown → 404.
   */
  async function subjectOf(caller: Principal, ref: string | undefined): Promise<{viewer: Viewer; user: {id: number; login: string; name: string}}> {
    const self = {viewer: viewerOf(caller), user: {id: caller.id, login: caller.login, name: caller.name}}
    const wanted = ref?.trim()
    if (!wanted || wanted === caller.login || wanted === String(caller.id)) return self
    if (caller.role !== 'admin') throw forbidden('only an admin may look at the cascade of another user')
    const found = /^[1-9][0-9]{0,15}$/.test(wanted)
      ? await deps.store.accounts.getUser(caller.accountId, Number(wanted))
      : await deps.store.accounts.findUserByLogin(caller.accountId, wanted)
    if (!found) throw notFound('user not found')
    return {
      viewer: {accountId: caller.accountId, userId: found.id, teamIds: found.team_ids, departmentIds: found.department_ids},
      user: {id: found.id, login: found.login, name: found.name},
    }
  }

  /** Where the caller may write a prompt, and why not (the rules of promptData and mayWriteScope, said up front). */
  function writableScopes(user: Principal) {
    const write = refusal(user, 'prompt.write')
    const rows: Array<{scope: 'user' | 'team' | 'department' | 'account'; scope_id: number | null; label: string; allowed: boolean; why: string | null}> = []
    rows.push({scope: 'user', scope_id: user.id, label: `only me (${user.login})`, allowed: !write, why: write})
    if (!user.teamIds.length) rows.push({scope: 'team', scope_id: null, label: 'a team', allowed: false, why: 'you are in no team'})
    for (const id of user.teamIds) rows.push({scope: 'team', scope_id: id, label: `team ${id}`, allowed: !write, why: write})
    if (!user.departmentIds.length) rows.push({scope: 'department', scope_id: null, label: 'a department', allowed: false, why: 'you are in no department'})
    for (const id of user.departmentIds) rows.push({scope: 'department', scope_id: id, label: `department ${id}`, allowed: !write, why: write})
    const account = write ?? refusal(user, 'prompt.write_account')
    rows.push({scope: 'account', scope_id: null, label: 'the whole account', allowed: !account, why: account})
    return rows
  }

  handle(app, routes.explainPrompt, async (c, {query}) => {
    const caller = requireUser(c)
    const {viewer, user} = await subjectOf(caller, query.user)
    const {explainCascade} = await import('../../core/prompts/explain.js')
    const stored = await repo.byCodes(viewer, [query.code, query.code + '_extra'])
    const system = {
      main: (await findSystemFile(deps.systemPromptsDirs, query.code)) !== null,
      extra: (await findSystemFile(deps.systemPromptsDirs, query.code + '_extra')) !== null,
    }
    return json(c, {...explainCascade(query.code, viewer, stored, system), user, writable: writableScopes(caller)})
  })

  handle(app, routes.previewPrompt, async (c, {body}) => {
    const caller = requireUser(c)
    const {viewer} = await subjectOf(caller, body.user)
    const {analyzeTemplate, parseDate, renderPrompt, variablesFrom, missingVariables, TOKEN_PLACEHOLDER} = await import('../../core/prompts/render.js')
    const date = parseDate(body.date)
    const variables = variablesFrom(Object.entries(body.variables ?? {}))
    const analysed = analyzeTemplate(body.content)
    if (analysed.problem) return json(c, {text: null, problem: analysed.problem, variables: [], missing: [], extra: null})
    let extra: {layer: string; content: string} | null = null
    if (body.code) {
      const {cascade} = await import('../../core/prompts/render-by-code.js')
      const found = await cascade(sources, viewer, body.code)
      if (found?.extra) extra = {layer: found.extra.layer, content: found.extra.content}
    }
    const {withExtra} = await import('../../core/prompts/cascade.js')
    const template = withExtra(body.content, extra?.content ?? null)
    // Never a real token in a preview (it may be another user's view): the visible placeholder.
    const input = {template, accountUrl: accountUrl(deps, c), token: TOKEN_PLACEHOLDER, date, variables, strict: false}
    const base = {variables: analysed.variables, missing: missingVariables(template, variables), extra: extra?.layer ?? null}
    try {
      const text = await (renderIn(caller.accountId) ?? renderPrompt)(input)
      return json(c, {text, problem: null, ...base})
    } catch (error) {
      if (!isSvcError(error) || error.status !== 422) throw error
      const message = String((error.details?.content as string[] | undefined)?.[0] ?? error.message)
      const at = /line:(\d+), col:(\d+)/.exec(message)
      return json(c, {text: null, problem: {message, line: at ? Number(at[1]) : null, column: at ? Number(at[2]) : null}, ...base})
    }
  })

  /** A prompt answer with its ETag (docs/api.md "ETag and If-Match"). */
  const tagged = (c: Context, record: PromptRecord, status: 200 | 201 = 200) => {
    const view = toView(record)
    c.header('ETag', promptEtag(view))
    return json(c, view, status)
  }
  const tagOf = (p: PromptRecord) => promptEtag(toView(p))
  /** A check of `header` (If-Match, or the tag a merge was made on), run by the store inside its write against the prompt it is about to change. */
  const checkFor = (header: string | undefined) => ifMatchCheck(header, 'prompt', tagOf, toView)
  const ifMatch = (c: Context) => checkFor(c.req.header('if-match'))

  handle(app, routes.getPrompt, visible, async (c) => tagged(c, loaded.get(c)))
  handle(app, routes.getPromptContent, visible, async (c) => markdown(c, loaded.get(c).content))

  handle(app, routes.updatePrompt, writer, changeable, async (c, {body}) => {
    const user = requireCan(c, 'prompt.write')
    const id = loaded.get(c).id
    // The patch is merged over the prompt as loaded, and written only if it is still that version
    // (docs/api.md "ETag and If-Match"); without If-Match, a change made in between is merged again.
    const updated = await writeOnVersion({
      ifMatch: c.req.header('if-match'),
      what: 'prompt',
      loaded: loaded.get(c),
      tagOf,
      checkFor: (header) => checkFor(header)!,
      reload: async () => {
        const again = await repo.get(viewerOf(user), id)
        if (!again) throw notFound('prompt not found')
        if (!mayChange(user, again)) throw forbidden('only its creator or an admin may change this prompt')
        return again
      },
      write: (existing, check) => {
        mayWriteScope(user, existing.scope)
        const data = promptData(body.prompt, user, existing)
        mayWriteScope(user, data.scope)
        return repo.update(user.accountId, id, data, check)
      },
    })
    if (!updated) throw notFound('prompt not found')
    return tagged(c, updated)
  })

  handle(app, routes.deletePrompt, writer, changeable, async (c) => {
    const user = requireCan(c, 'prompt.write')
    mayWriteScope(user, loaded.get(c).scope)
    if (!(await repo.delete(user.accountId, loaded.get(c).id, ifMatch(c)))) throw notFound('prompt not found')
    return c.body(null, 204)
  })

  handle(app, routes.renderPrompt, async (c) => {
    const user = requireUser(c)
    const {renderByCode} = await import('../../core/prompts/render-by-code.js')
    const r = await renderByCode(sources, {
      viewer: viewerOf(user),
      code: param(c, 'code'),
      params: new URL(c.req.url).searchParams,
      accountUrl: accountUrl(deps, c),
      strict: c.req.header(STRICT_HEADER) === '1',
      reportMissing: c.req.header(MISSING_HEADER) === '1',
      token: () => tokenFor(deps, c, user),
      render: renderIn(user.accountId),
    })
    return markdown(c, r.text, renderHeaders(r))
  })

  return app
}
