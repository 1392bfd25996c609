/**
 * What both embedded transports share (src/client/embedded.ts and the prompt fast path in
 * src/fastpath/embedded-prompts.ts): the data dir check, the acting user and the system prompt
 * dirs. Kept free of the HTTP app and of other areas' code so the fast path stays light.
 */
import {existsSync} from 'node:fs'
import {relative, resolve} from 'node:path'
import {SvcError} from '../core/errors.js'
import {PACKAGE_SYSTEM_PROMPTS} from '../paths.js'
import type {AccountsRepo, UserView} from '../store/accounts/types.js'
import type {Backend} from './backend.js'
import {dataFile} from '../store/sqlite.js'

export const EMBEDDED_ORIGIN = 'http://localhost'

export interface EmbeddedOptions {
  dataDir: string
  /** Act as this login (default: the first admin of the first account). */
  as?: string
  systemPromptsDir?: string
}

/** The absolute data dir; a usage error when it holds no svc data. */
export function checkDataDir(options: EmbeddedOptions): string {
  const dataDir = resolve(options.dataDir)
  if (!existsSync(dataFile(dataDir))) {
    throw new SvcError('usage', 0, `no svc data in ${options.dataDir}`, undefined,
      `create it with: svc admin user add LOGIN --role admin --data ${options.dataDir}`)
  }
  return dataDir
}

/** The user an embedded command acts as: `--as LOGIN` in any account, else the first account's default user. */
export async function resolveActingUser(accounts: AccountsRepo, options: EmbeddedOptions): Promise<UserView> {
  let user: UserView | null = null
  if (options.as) {
    for (const a of await accounts.listAccounts()) {
      user = await accounts.findUserByLogin(a.id, options.as)
      if (user) break
    }
    if (!user) throw new SvcError('unauthorized', 401, `no user "${options.as}" in ${options.dataDir}`, undefined,
      `add one with: svc admin user add ${options.as} --data ${options.dataDir}`)
  } else {
    const account = await accounts.firstAccount()
    if (account) user = await accounts.defaultUser(account.id)
  }
  if (!user) throw new SvcError('unauthorized', 401, `no user in ${options.dataDir}`, undefined,
    `add one with: svc admin user add admin --role admin --data ${options.dataDir}`)
  return user
}

/** The package's system prompts, then `--system-prompts DIR` (later dirs win). */
export function embeddedSystemPromptsDirs(options: EmbeddedOptions): string[] {
  return [PACKAGE_SYSTEM_PROMPTS, ...(options.systemPromptsDir ? [resolve(options.systemPromptsDir)] : [])]
}

/** An app that answers requests in-process (Hono's `app.request`). */
interface InProcessApp {
  request(input: string, init: RequestInit | undefined, env: {svcEmbeddedUserId: number}): Response | Promise<Response>
}

/** The embedded Backend: `app` called in-process as `user` over `dataDir`; `close` releases the data dir. */
export function inProcessBackend(app: InProcessApp, dataDir: string, user: UserView, close: () => void): Backend {
  const shown = relative(process.cwd(), dataDir) || '.'
  return {
    kind: 'embedded',
    description: `local: ${shown.startsWith('..') ? dataDir : `./${shown}`} as ${user.login}`,
    baseUrl: EMBEDDED_ORIGIN,
    async fetch(path, init) {
      return app.request(EMBEDDED_ORIGIN + path, init, {svcEmbeddedUserId: user.id})
    },
    async close() {
      close()
    },
  }
}
