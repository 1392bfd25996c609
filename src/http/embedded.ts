/**
 * The app of the CLI's embedded backend (src/client/embedded.ts): a local data dir (or a
 * PostgreSQL database) opened as one of its users, its services, and the same Hono app `svc serve`
 * runs, to be called in-process. `close()` stops the services before the store closes, so a flow
 * a command started finishes, or is aborted, and is recorded.
 */
import {createServices} from '../services/index.js'
import {openStoreAt} from '../store/index.js'
import type {UserView} from '../store/accounts/types.js'
import {checkDataDir, resolveActingUser, type LocalUserTarget} from '../store/local-user.js'
import {createApp, type SvcApp} from './app.js'

export interface EmbeddedAppOptions extends LocalUserTarget {
  systemPromptsDirs: string[]
  publicUrl?: string
}

export interface EmbeddedApp {
  app: SvcApp
  user: UserView
  /** The absolute data dir. */
  dataDir: string
  close(): Promise<void>
}

export async function openEmbeddedApp(options: EmbeddedAppOptions): Promise<EmbeddedApp> {
  const dataDir = checkDataDir(options)
  const store = await openStoreAt({dataDir, databaseUrl: options.databaseUrl})
  let user: UserView
  try {
    user = await resolveActingUser(store.accounts, options)
  } catch (error) {
    await store.close()
    throw error
  }
  // One local user: renders stay in this process (no worker threads to start), connectors may reach
  // local hosts. No scheduler: crons run only inside `svc serve`.
  const services = createServices(store, {renders: {inProcess: true}, allowConnectorHosts: ['*']})
  const app = createApp({store, services, systemPromptsDirs: options.systemPromptsDirs, publicUrl: options.publicUrl})
  return {
    app, user, dataDir,
    async close() {
      try {
        await services.stop()
      } finally {
        await store.close()
      }
    },
  }
}
