/**
 * The embedded backend of the fast path: the same in-process transport as src/client/embedded.ts
 * (same data dir check and acting user from src/client/acting-user.ts, same middleware and the same prompts router), with only
 * the prompts routes mounted and only the repositories they use opened, so a cold
 * `svc prompt render` does not load every other area's code.
 */
import {Hono} from 'hono'
import type {Backend} from '../client/backend.js'
import {checkDataDir, embeddedSystemPromptsDirs, inProcessBackend, resolveActingUser, type EmbeddedOptions} from '../client/acting-user.js'
import type {AppEnv, Deps} from '../http/env.js'
import {identify} from '../http/middleware/auth.js'
import {notFoundHandler, onError} from '../http/middleware/errors.js'
import {promptsRoutes} from '../http/routes/prompts.js'
import {SqliteAccountsRepo} from '../store/accounts/sqlite.js'
import {SqlitePromptsRepo} from '../store/prompts/sqlite.js'
import {openSqlite} from '../store/sqlite.js'
import type {Store} from '../store/types.js'

export async function promptsEmbeddedBackend(options: EmbeddedOptions): Promise<Backend> {
  const dataDir = checkDataDir(options)
  const db = openSqlite(dataDir)
  const accounts = new SqliteAccountsRepo(db)
  // Only what the prompts routes and the auth middleware use; the other repositories stay unloaded.
  const store = {accounts, prompts: new SqlitePromptsRepo(db), dataDir, close: () => db.close()} as unknown as Store
  try {
    const user = await resolveActingUser(accounts, options)
    const deps: Deps = {
      store,
      systemPromptsDirs: embeddedSystemPromptsDirs(options),
      publicUrl: process.env.SVC_PUBLIC_URL,
    }
    const app = new Hono<AppEnv>()
    app.onError(onError(deps.log))
    app.notFound(notFoundHandler)
    app.use('*', identify(deps))
    app.route('/', promptsRoutes(deps))
    return inProcessBackend(app, dataDir, user, () => db.close())
  } catch (error) {
    db.close()
    throw error
  }
}
