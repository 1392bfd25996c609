/**
 * `GET /svc/prompt/:code.md` as one function: the cascade over stored prompts and system files,
 * then the render. The HTTP route and the `svc prompt render` fast path both call it, so the two
 * cannot drift. The I/O (stored prompts, system files, token lookup) is passed in.
 */
import {badRequest, notFound} from '../errors.js'
import {EXTRA_SUFFIX, pickStored, withExtra, type Resolved} from './cascade.js'
import {missingVariables, parseDate, renderPrompt, TOKEN_PLACEHOLDER, variablesFrom, type RenderInput} from './render.js'
import type {Layer, PromptRecord, Viewer} from './types.js'
import {isPromptCode} from './validate.js'

export interface PromptSources {
  /** The stored prompts of these codes that the viewer may see. */
  byCodes(viewer: Viewer, codes: string[]): Promise<PromptRecord[]>
  /** The body (front matter removed) of the winning system file of `code`, or null. */
  systemFile(code: string): Promise<string | null>
}

/** What TOKEN renders as, and where it came from. */
export interface TokenChoice {
  token: string
  /** `bearer` (the request's own), `given` (embedded `--token`), or `placeholder`. */
  source: 'bearer' | 'given' | 'placeholder'
}

export interface RenderByCodeInput {
  viewer: Viewer
  code: string
  /** Query parameters: `date` and the caller's variables. */
  params: URLSearchParams
  /** No trailing slash. */
  accountUrl: string
  strict: boolean
  /** Also list the variables the template reads that were not given (costs a second parse). */
  reportMissing?: boolean
  /** Called once the cascade found a prompt (so an unknown code is a 404 before a bad token is a 400). */
  token(): Promise<TokenChoice>
  /** Renders the template (default: renderPrompt in this thread; the server passes its render pool). */
  render?: (input: RenderInput) => Promise<string>
}

export interface RenderedPrompt {
  text: string
  /** Layer that won. */
  layer: Layer
  /** The stored prompt that won, null for a system file. */
  promptId: string | null
  /** Layer of the appended `<code>_extra`, null when none applied. */
  extraLayer: Layer | null
  tokenSource: TokenChoice['source']
  /** Variables the template reads that the caller did not give (they render blank). */
  missing: string[]
}

/** The cascade's winner for `code` and for `<code>_extra` (stored layers, then system files), or null. */
export async function cascade(sources: PromptSources, viewer: Viewer, code: string): Promise<{main: Resolved; extra: Resolved | null} | null> {
  const extraCode = code + EXTRA_SUFFIX
  const stored = await sources.byCodes(viewer, [code, extraCode])
  const layer = async (c: string): Promise<Resolved | null> => {
    const hit = pickStored(stored.filter((p) => p.code === c), viewer)
    if (hit) return hit
    const content = await sources.systemFile(c)
    return content === null ? null : {layer: 'system', content, record: null}
  }
  const main = await layer(code)
  if (!main) return null
  return {main, extra: await layer(extraCode)}
}

export async function renderByCode(sources: PromptSources, input: RenderByCodeInput): Promise<RenderedPrompt> {
  if (!isPromptCode(input.code)) throw notFound('prompt not found')
  const date = parseDate(input.params.get('date') ?? undefined)
  const variables = variablesFrom(input.params.entries())
  const found = await cascade(sources, input.viewer, input.code)
  if (!found) throw notFound(`no prompt with code "${input.code}"`)
  const {token, source} = await input.token()
  const template = withExtra(found.main.content, found.extra?.content ?? null)
  const text = await (input.render ?? renderPrompt)({
    template,
    accountUrl: input.accountUrl,
    token,
    date,
    variables,
    strict: input.strict,
  })
  return {
    text,
    layer: found.main.layer,
    promptId: found.main.record?.id ?? null,
    extraLayer: found.extra?.layer ?? null,
    tokenSource: source,
    missing: input.reportMissing ? missingVariables(template, variables) : [],
  }
}

/**
 * TOKEN for a caller without a bearer token: a token the CLI was given (`--token` on the embedded
 * backend) when it is one of the acting user's own, else the visible placeholder.
 */
export async function givenOrPlaceholder(
  given: string | undefined,
  user: {id: number; login: string},
  ownerOf: (token: string) => Promise<{id: number} | null>,
): Promise<TokenChoice> {
  if (!given) return {token: TOKEN_PLACEHOLDER, source: 'placeholder'}
  const owner = await ownerOf(given)
  if (!owner || owner.id !== user.id) throw badRequest(`the token given is not an API token of ${user.login}`)
  return {token: given, source: 'given'}
}
