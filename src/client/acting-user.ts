/**
 * What the embedded backend (src/client/embedded.ts) and the render fast path
 * (src/fastpath/embedded-render.ts) share: the data dir check, the acting user, the system prompt
 * dirs and the description. Kept free of the HTTP app and of other areas' code so the fast path stays light.
 */
import {existsSync} from 'node:fs'
import {relative, resolve} from 'node:path'
import {SvcError} from '../core/errors.js'
import {PACKAGE_SYSTEM_PROMPTS} from '../paths.js'
import type {AccountsRepo, UserView} from '../store/accounts/types.js'
import {dataFile} from '../store/sqlite/connection.js'
import {refuseNewSqlite} from '../store/database-marker.js'

export const EMBEDDED_ORIGIN = 'http://localhost'

export interface EmbeddedOptions {
  dataDir: string
  /** PostgreSQL instead of the data dir's SQLite file (the data dir then holds only files: compile cache). */
  databaseUrl?: string
  /** Act as this login (default: the first admin of the first account). */
  as?: string
  systemPromptsDir?: string
}

/** The absolute data dir; a usage error when it holds no svc data. */
export function checkDataDir(options: EmbeddedOptions): string {
  const dataDir = resolve(options.dataDir)
  if (!options.databaseUrl && !existsSync(dataFile(dataDir))) {
    refuseNewSqlite(dataDir) // a PostgreSQL server's data dir: say so, with the flag to add
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

/** How an embedded target is shown (stderr, `svc whoami`): `local: ./.svc as admin`. */
export function embeddedDescription(dataDir: string, login: string): string {
  const shown = relative(process.cwd(), dataDir) || '.'
  return `local: ${shown.startsWith('..') ? dataDir : `./${shown}`} as ${login}`
}
