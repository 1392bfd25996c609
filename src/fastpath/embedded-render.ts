/**
 * `svc prompt render` on a local data dir without the HTTP app: the acting user and the data dir
 * check of the embedded backend (src/store/local-user.ts), then the very function behind
 * `GET /svc/prompt/:code.md` (src/core/prompts/render-by-code.ts) over the prompts repository and
 * the system prompt files. No Hono, no Request/Response (loading undici alone costs ~45 ms cold),
 * no other area's code. The oclif command (SVC_NO_FASTPATH=1) goes through the app, and the CLI
 * tests run both to prove they answer alike.
 */
import {EMBEDDED_ORIGIN, embeddedDescription, embeddedSystemPromptsDirs, type EmbeddedOptions} from '../client/acting-user.js'
import {unauthorized} from '../core/errors.js'
import {renderByCode, givenOrPlaceholder, type PromptSources} from '../core/prompts/render-by-code.js'
import {viewerOf} from '../core/prompts/types.js'
import {findSystemFile} from '../store/prompts/system-files.js'
import {openLocalPrompts} from '../store/local.js'
import {checkDataDir, resolveActingUser} from '../store/local-user.js'
import type {RenderResult} from './prompt-render.js'

export interface LocalRenderer {
  /** `local: ./.svc as admin`, as the embedded backend describes itself. */
  description: string
  render(code: string, params: URLSearchParams, options: {strict: boolean; token?: string}): Promise<RenderResult>
  close(): void
}

export async function openLocalRenderer(options: EmbeddedOptions): Promise<LocalRenderer> {
  const dataDir = checkDataDir(options)
  const local = openLocalPrompts(dataDir)
  try {
    const {accounts, prompts} = local
    const user = await resolveActingUser(accounts, options)
    const dirs = embeddedSystemPromptsDirs(options)
    const sources: PromptSources = {
      byCodes: (viewer, codes) => prompts.byCodes(viewer, codes),
      systemFile: async (code) => (await findSystemFile(dirs, code))?.content ?? null,
    }
    return {
      description: embeddedDescription(dataDir, user.login),
      async render(code, params, {strict, token}) {
        const principal = await accounts.principal(user.id)
        if (!principal) throw unauthorized()
        const r = await renderByCode(sources, {
          viewer: viewerOf(principal),
          code,
          params,
          accountUrl: (process.env.SVC_PUBLIC_URL || EMBEDDED_ORIGIN).replace(/\/+$/, ''),
          strict,
          reportMissing: true,
          token: () => givenOrPlaceholder(token, principal, (t) => accounts.authenticate(t)),
        })
        return {code, text: r.text, source: r.layer, prompt_id: r.promptId, extra: r.extraLayer, token: r.tokenSource, missing: r.missing}
      },
      close: () => local.close(),
    }
  } catch (error) {
    local.close()
    throw error
  }
}
