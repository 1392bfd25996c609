/**
 * A local data dir opened as one of its users, as the CLI's embedded backend (src/http/embedded.ts)
 * and the render fast path (src/fastpath/embedded-render.ts) do: the data dir check and the acting
 * user. Small and free of the rest of the store, so the fast path's bundle stays light.
 */
import {existsSync} from 'node:fs'
import {resolve} from 'node:path'
import {SvcError} from '../core/errors.js'
import type {AccountsRepo, UserView} from './accounts/types.js'
import {refuseNewSqlite} from './database-marker.js'
import {dataFile} from './local.js'

/** Which local data a command works on, and as whom. */
export interface LocalUserTarget {
  dataDir: string
  /** PostgreSQL instead of the data dir's SQLite file. */
  databaseUrl?: string
  /** Act as this login (default: the first admin of the first account). */
  as?: string
}

/** The absolute data dir; a usage error when it holds no svc data. */
export function checkDataDir(options: LocalUserTarget): string {
  const dataDir = resolve(options.dataDir)
  if (!options.databaseUrl && !existsSync(dataFile(dataDir))) {
    refuseNewSqlite(dataDir) // a PostgreSQL server's data dir: say so, with the flag to add
    throw new SvcError('usage', 0, `no svc data in ${options.dataDir}`, undefined,
      `create it with: svc admin user add LOGIN --role admin --data ${options.dataDir}`)
  }
  return dataDir
}

/** The user an embedded command acts as: `--as LOGIN` in any account, else the first account's default user. */
export async function resolveActingUser(accounts: AccountsRepo, options: LocalUserTarget): Promise<UserView> {
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
