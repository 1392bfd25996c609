import {createApp} from '../http/app.js'
import {createServices} from '../services/index.js'
import {openStoreAt} from '../store/index.js'
import type {UserView} from '../store/accounts/types.js'
import {checkDataDir, EMBEDDED_ORIGIN, embeddedDescription, embeddedSystemPromptsDirs, resolveActingUser, type EmbeddedOptions} from './acting-user.js'
import type {Backend} from './backend.js'

export type {EmbeddedOptions} from './acting-user.js'

/** The same Hono app, called in-process over a local data dir: no socket, same routes and errors. */
export async function embeddedBackend(options: EmbeddedOptions): Promise<Backend> {
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
  const app = createApp({store, services, systemPromptsDirs: embeddedSystemPromptsDirs(options), publicUrl: process.env.SVC_PUBLIC_URL})
  // The services first (a flow a command started finishes, or is aborted, and is recorded), then the store.
  return inProcessBackend(app, dataDir, user, async () => {
    try {
      await services.stop()
    } finally {
      await store.close()
    }
  })
}

/** An app that answers requests in-process (Hono's `app.request`). */
interface InProcessApp {
  request(input: string, init: RequestInit | undefined, env: {svcEmbeddedUserId: number}): Response | Promise<Response>
}

/** The embedded Backend: `app` called in-process as `user` over `dataDir`; `close` releases the data dir. */
function inProcessBackend(app: InProcessApp, dataDir: string, user: UserView, close: () => Promise<void>): Backend {
  return {
    kind: 'embedded',
    description: embeddedDescription(dataDir, user.login),
    baseUrl: EMBEDDED_ORIGIN,
    async fetch(path, init) {
      return app.request(EMBEDDED_ORIGIN + path, init, {svcEmbeddedUserId: user.id})
    },
    async close() {
      await close()
    },
  }
}
