/**
 * Rendering of prompt content with liquidjs: the automatic variables (TOKEN, ACCOUNT_URL,
 * account_url, date), the caller's variables, and the filters `prompt_url` and `api_block`.
 * Bounded: template size, render time and memory are capped; no file system (include, render and
 * layout find nothing); no prototype properties. Pure: no I/O.
 */
import {createRequire} from 'node:module'
import type * as LiquidModule from 'liquidjs'
import {badRequest, SvcError, validation} from '../errors.js'
import {isReservedName} from '../safe-keys.js'

// liquidjs ships CommonJS as its entry: require() skips the ESM named-export scan (~40 ms cold).
const liquidjs = createRequire(import.meta.url)('liquidjs') as typeof LiquidModule

export const RENDER_LIMITS = {
  /** Characters of template parsed per render (content plus `_extra`: two stored prompts of 200,000). */
  parseLimit: 400_000,
  /** Milliseconds one render may take, checked by liquidjs between nodes (the server adds a hard
   *  deadline that holds inside a node: src/services/renders/render-pool.ts). */
  renderLimit: 1_000,
  /** Memory units (string and array sizes) one render may allocate. */
  memoryLimit: 4_000_000,
} as const

/**
 * Liquid tags and outputs (`{% %}`, `{{ }}`) in one template. liquidjs parses ~100 µs per tag here:
 * 39,000 `{{a}}` (195 KB) took 4 s to parse; 2,000 take ~0.2 s. Real prompts hold a few dozen.
 */
export const MAX_TEMPLATE_TAGS = 2_000
/** Items a `for` or `tablerow` may walk, and the largest range `(a..b)`: liquidjs builds the whole
 *  array inside one node, before its render limit is checked again. */
export const MAX_LOOP_ITEMS = 100_000

/** The message when a template holds more tags than MAX_TEMPLATE_TAGS, else null. Counts without parsing. */
export function tooManyTags(template: string): string | null {
  let count = 0
  for (let i = template.indexOf('{'); i >= 0; i = template.indexOf('{', i + 1)) {
    const next = template.charCodeAt(i + 1)
    if ((next === 123 || next === 37) && ++count > MAX_TEMPLATE_TAGS) return `has more than ${MAX_TEMPLATE_TAGS} Liquid tags and outputs`
  }
  return null
}

/** Rendered instead of a token when the request carries no bearer token to show. */
export const TOKEN_PLACEHOLDER = '<API_TOKEN>'

/** Names the server fills in; a query parameter of the same name never overrides them. */
export const AUTOMATIC_VARIABLES = ['TOKEN', 'ACCOUNT_URL', 'account_url', 'date'] as const
const VARIABLE_RE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/
export const MAX_VARIABLES = 100

export interface RenderInput {
  template: string
  /** No trailing slash. */
  accountUrl: string
  token: string
  /** `YYYY-MM-DD`. */
  date: string
  /** Variables of the caller (the `env` of an AI button). */
  variables: Record<string, unknown>
  /** Fail on a variable the template outputs but nobody supplied (conditions stay lenient). */
  strict?: boolean
}

export const promptUrl = (accountUrl: string, code: string) => `${accountUrl}/svc/prompt/${encodeURIComponent(code.trim())}.md`

/** The header lines an agent needs: instruction links, the API rules link, Host and Authorization. */
export function apiBlock(accountUrl: string, token: string, codes: string): string {
  const lines = codes
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)
    .map((c) => `Instrukcje API: ${promptUrl(accountUrl, c)}`)
  lines.push(`Zasady API: ${promptUrl(accountUrl, 'common_api')}`, `Host: ${accountUrl}`, `Authorization: Bearer ${token}`)
  return lines.join('\n')
}

/** `?date=` → `YYYY-MM-DD`; absent or empty → today (server's local date); anything else → 400. */
export function parseDate(value: string | undefined, now = new Date()): string {
  if (value === undefined || value === '') {
    const p = (n: number) => String(n).padStart(2, '0')
    return `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`
  }
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
    const probe = new Date(Date.UTC(y, mo - 1, d))
    if (probe.getUTCFullYear() === y && probe.getUTCMonth() === mo - 1 && probe.getUTCDate() === d) return value
  }
  throw badRequest('date must be a valid date written YYYY-MM-DD')
}

/** Suffix of a query parameter whose value is JSON (`items:json=[1,2]`): lists and objects for `{% for %}`. */
export const JSON_SUFFIX = ':json'

/**
 * The caller's variables from query parameters: identifiers only, automatic names and `date` left
 * out. `name:json=VALUE` gives a JSON value (a bad one is a 400 naming the variable).
 */
export function variablesFrom(params: Iterable<[string, string]>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  let count = 0
  for (const [rawKey, value] of params) {
    const isJson = rawKey.endsWith(JSON_SUFFIX)
    const key = isJson ? rawKey.slice(0, -JSON_SUFFIX.length) : rawKey
    if (isReservedName(key) || !VARIABLE_RE.test(key) || (AUTOMATIC_VARIABLES as readonly string[]).includes(key)) continue
    if (Object.prototype.hasOwnProperty.call(out, key)) continue
    if (++count > MAX_VARIABLES) throw badRequest(`at most ${MAX_VARIABLES} variables`)
    if (!isJson) out[key] = value
    else {
      try {
        out[key] = JSON.parse(value, (k, v) => (isReservedName(k) ? undefined : v))
      } catch {
        throw badRequest(`variable "${key}" is not valid JSON`, {variable: key})
      }
    }
  }
  return out
}

/**
 * The variables a template reads from outside (liquidjs static analysis) that were not given, for
 * the "not given" warning of `svc prompt render`; automatic variables never count. A template
 * that does not parse reports none (the render itself says what is wrong).
 */
export function missingVariables(template: string, given: Record<string, unknown>): string[] {
  try {
    const liquid = engine('', '', false)
    const parsed = liquid.parse(template)
    skipDefaulted(parsed)
    const names = liquid.globalVariablesSync(parsed)
    return [...new Set(names)].filter((n) => !(n in given) && !(AUTOMATIC_VARIABLES as readonly string[]).includes(n)).slice(0, 20)
  } catch {
    return []
  }
}

/**
 * Hides from the static analysis the value of every output, `echo` or `assign` that has a `default`
 * filter (`{{ name | default: "friend" }}`): a missing `name` renders the default, not a blank, so it is
 * not "not given, rendered blank". The filters' own arguments (`default: other`) still count, and
 * so does the same variable anywhere else. Walks tags' children (partials are not read).
 */
function skipDefaulted(templates: LiquidModule.Template[]): void {
  for (const t of templates) {
    if (t instanceof liquidjs.Output || t instanceof liquidjs.EchoTag || t instanceof liquidjs.AssignTag) {
      const value = (t as {value?: unknown}).value
      if (value instanceof liquidjs.Value && value.filters.some((f) => f.name === 'default')) {
        const filtersOnly = Object.create(value, {initial: {value: {postfix: []}}}) as LiquidModule.Value
        t.arguments = function* () { yield filtersOnly }
      }
      continue
    }
    const withChildren = t as LiquidModule.Template & {children?: (partials: boolean, sync: boolean) => Generator<unknown, LiquidModule.Template[]>}
    if (typeof withChildren.children === 'function') {
      const children = liquidjs.toValueSync(withChildren.children(false, true)) as LiquidModule.Template[] | undefined
      if (Array.isArray(children)) skipDefaulted(children)
    }
  }
}

/**
 * `{% capture %}` that charges what it captured to the render's memory limit: liquidjs charges
 * filters such as `append` but not captures, so `{% capture a %}{{ a }}{{ a }}{% endcapture %}` in
 * a loop could build a string of hundreds of MB before failing.
 */
class BoundedCapture extends liquidjs.CaptureTag {
  * render(ctx: LiquidModule.Context): Generator<unknown, void, string> {
    yield * super.render(ctx)
    const value = ctx.bottom()[this.variable as keyof object] as unknown
    if (typeof value === 'string') ctx.memoryLimit.use(value.length)
  }
}

/**
 * `for` and `tablerow` that refuse a collection (or a range) longer than MAX_LOOP_ITEMS before
 * walking it: `{% tablerow i in (1..10000000) %}` built ten million cells inside one node (4.5 s)
 * with liquidjs's render limit never consulted.
 */
function boundedLoop<T extends new (...args: any[]) => LiquidModule.Tag>(Base: T): T {
  return class extends Base {
    * render(ctx: LiquidModule.Context, emitter: LiquidModule.Emitter): Generator<unknown, unknown, unknown> {
      const collection = (this as unknown as {collection: LiquidModule.ValueToken}).collection
      const range = collection && (collection as {kind?: number}).kind === liquidjs.TokenKind.Range
        ? (collection as unknown as {lhs: LiquidModule.ValueToken; rhs: LiquidModule.ValueToken}) : null
      if (range) {
        const lhs = Number(yield liquidjs.evalToken(range.lhs, ctx))
        const rhs = Number(yield liquidjs.evalToken(range.rhs, ctx))
        if (Number.isFinite(lhs) && Number.isFinite(rhs) && rhs - lhs + 1 > MAX_LOOP_ITEMS) {
          throw new liquidjs.RenderError(new Error(`loop limit exceeded: more than ${MAX_LOOP_ITEMS} items`), this as never)
        }
      } else if (collection) {
        const value = yield liquidjs.evalToken(collection, ctx)
        const length = typeof value === 'string' ? 1 : (value as {length?: unknown} | null)?.length
        if (typeof length === 'number' && length > MAX_LOOP_ITEMS) {
          throw new liquidjs.RenderError(new Error(`loop limit exceeded: more than ${MAX_LOOP_ITEMS} items`), this as never)
        }
      }
      const render = (Base.prototype as unknown as {render: (ctx: LiquidModule.Context, emitter: LiquidModule.Emitter) => Generator<unknown, unknown, unknown>}).render
      return yield * render.call(this, ctx, emitter)
    }
  } as T
}

function engine(accountUrl: string, token: string, strict: boolean): LiquidModule.Liquid {
  const liquid = new liquidjs.Liquid({
    templates: {},
    strictFilters: true,
    strictVariables: strict,
    lenientIf: true,
    ownPropertyOnly: true,
    cache: false,
    // A fixed locale: the same output on every machine, and liquidjs skips probing Intl for the
    // system's (loading ICU data costs ~20 ms of a cold `svc prompt render`).
    locale: 'en-US',
    ...RENDER_LIMITS,
  })
  liquid.registerTag('capture', BoundedCapture)
  liquid.registerTag('for', boundedLoop(liquidjs.ForTag))
  liquid.registerTag('tablerow', boundedLoop(liquidjs.TablerowTag))
  liquid.registerFilter('prompt_url', (code: unknown) => promptUrl(accountUrl, String(code ?? '')))
  liquid.registerFilter('api_block', (codes: unknown) => apiBlock(accountUrl, token, String(codes ?? '')))
  return liquid
}

/** Parses a template (no render): the message for `content` when it is not valid Liquid, else null. */
export function templateError(template: string): string | null {
  const tags = tooManyTags(template)
  if (tags) return tags
  try {
    engine('', '', false).parse(template)
    return null
  } catch (error) {
    return `is not a valid Liquid template: ${liquidMessage(error)}`
  }
}

/** Where a template fails to parse (1-based line and column), for an editor to underline. */
export interface TemplateProblem {
  message: string
  line: number | null
  column: number | null
}

/**
 * A template as an editor sees it, without rendering: the first parse error with its position,
 * and the variables it reads from outside (liquidjs static analysis; automatic ones left out).
 */
export function analyzeTemplate(template: string): {problem: TemplateProblem | null; variables: string[]} {
  const tags = tooManyTags(template)
  if (tags) return {problem: {message: `it ${tags}`, line: null, column: null}, variables: []}
  const liquid = engine('', '', false)
  try {
    const parsed = liquid.parse(template)
    const names = liquid.globalVariablesSync(parsed)
    const variables = [...new Set(names)].filter((n) => !(AUTOMATIC_VARIABLES as readonly string[]).includes(n)).slice(0, MAX_VARIABLES)
    return {problem: null, variables}
  } catch (error) {
    const at = (error as {token?: {getPosition?: () => [number, number]}}).token?.getPosition?.()
    const message = liquidMessage(error).replace(/, line:\d+, col:\d+$/, '')
    return {problem: {message, line: at?.[0] ?? null, column: at?.[1] ?? null}, variables: []}
  }
}

/** Renders a template. Bad Liquid or a limit reached → 422 under `content`; strict and unsupplied → 400. */
export async function renderPrompt(input: RenderInput): Promise<string> {
  const liquid = engine(input.accountUrl, input.token, input.strict ?? false)
  const scope: Record<string, unknown> = {...input.variables}
  scope.TOKEN = input.token
  scope.ACCOUNT_URL = input.accountUrl
  scope.account_url = input.accountUrl
  scope.date = input.date
  const tags = tooManyTags(input.template)
  if (tags) throw validation({content: [`cannot be rendered: it ${tags}`]})
  try {
    return await liquid.parseAndRender(input.template, scope)
  } catch (error) {
    if (error instanceof SvcError) throw error
    const undefinedVariable = findUndefinedVariable(error)
    if (undefinedVariable !== null) {
      throw badRequest(`variable "${undefinedVariable}" is used by the prompt but was not given`, {variable: undefinedVariable})
    }
    throw validation({content: [`cannot be rendered: ${liquidMessage(error)}`]})
  }
}

function findUndefinedVariable(error: unknown): string | null {
  let e: unknown = error
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof liquidjs.UndefinedVariableError || (e as Error).name === 'UndefinedVariableError') {
      const m = /undefined variable: ([^,\s]+)/.exec((e as Error).message)
      return m ? m[1]! : 'unknown'
    }
    e = (e as {originalError?: unknown}).originalError
  }
  return null
}

/** The first line of a liquidjs message (position included, no template dump). */
function liquidMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return (message.split('\n')[0] ?? message).slice(0, 300)
}
