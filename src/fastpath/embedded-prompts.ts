/**
 * The embedded backend of the fast path: the same in-process transport as src/client/embedded.ts
 * (same data dir checks, same acting user, same middleware and the same prompts router), with only
 * the prompts routes mounted and only the repositories they use opened, so a cold
 * `svc prompt render` does not load every other area's code.
 */
import {existsSync} from 'node:fs'
import {relative, resolve} from 'node:path'
import {Hono} from 'hono'
import type {Backend} from '../client/backend.js'
import type {EmbeddedOptions} from '../client/embedded.js'
import {SvcError} from '../core/errors.js'
import type {AppEnv, Deps} from '../http/env.js'
import {identify} from '../http/middleware/auth.js'
import {notFoundHandler, onError} from '../http/middleware/errors.js'
import {promptsRoutes} from '../http/routes/prompts.js'
import {PACKAGE_SYSTEM_PROMPTS} from '../paths.js'
import {SqliteAccountsRepo} from '../store/accounts/sqlite.js'
import {SqlitePromptsRepo} from '../store/prompts/sqlite.js'
import {dataFile, openSqlite} from '../store/sqlite.js'
import type {Store} from '../store/types.js'

const EMBEDDED_ORIGIN = 'http://localhost'

export async function promptsEmbeddedBackend(options: EmbeddedOptions): Promise<Backend> {
  const dataDir = resolve(options.dataDir)
  if (!existsSync(dataFile(dataDir))) {
    throw new SvcError('usage', 0, `no svc data in ${options.dataDir}`, undefined,
      `create it with: svc admin user add LOGIN --role admin --data ${options.dataDir}`)
  }
  const db = openSqlite(dataDir)
  const accounts = new SqliteAccountsRepo(db)
  // Only what the prompts routes and the auth middleware use; the other repositories stay unloaded.
  const store = {accounts, prompts: new SqlitePromptsRepo(db), dataDir, close: () => db.close()} as unknown as Store
  try {
    let user = null
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
    const deps: Deps = {
      store,
      systemPromptsDirs: [PACKAGE_SYSTEM_PROMPTS, ...(options.systemPromptsDir ? [resolve(options.systemPromptsDir)] : [])],
      publicUrl: process.env.SVC_PUBLIC_URL,
    }
    const app = new Hono<AppEnv>()
    app.onError(onError(deps.log))
    app.notFound(notFoundHandler)
    app.use('*', identify(deps))
    app.route('/', promptsRoutes(deps))
    const shown = relative(process.cwd(), dataDir) || '.'
    const userId = user.id
    return {
      kind: 'embedded',
      description: `local: ${shown.startsWith('..') ? dataDir : `./${shown}`} as ${user.login}`,
      baseUrl: EMBEDDED_ORIGIN,
      async fetch(path, init) {
        return app.request(EMBEDDED_ORIGIN + path, init, {svcEmbeddedUserId: userId})
      },
      async close() {
        db.close()
      },
    }
  } catch (error) {
    db.close()
    throw error
  }
}
