import {createApp} from '../http/app.js'
import {openStoreAt} from '../store/index.js'
import type {UserView} from '../store/accounts/types.js'
import {checkDataDir, EMBEDDED_ORIGIN, embeddedDescription, embeddedSystemPromptsDirs, resolveActingUser, type EmbeddedOptions} from './acting-user.js'
import type {Backend} from './backend.js'

export type {EmbeddedOptions} from './acting-user.js'

/** The same Hono app, called in-process over a local data dir: no socket, same routes and errors. */
export async function embeddedBackend(options: EmbeddedOptions): Promise<Backend> {
  const dataDir = checkDataDir(options)
  const store = await openStoreAt({dataDir, databaseUrl: options.databaseUrl})
  try {
    const user = await resolveActingUser(store.accounts, options)
    const app = createApp({
      store,
      systemPromptsDirs: embeddedSystemPromptsDirs(options),
      publicUrl: process.env.SVC_PUBLIC_URL,
      // One local user: renders stay in this process (no worker threads to start), connectors may reach local hosts.
      renders: {inProcess: true},
      allowConnectorHosts: ['*'],
    })
    return inProcessBackend(app, dataDir, user, () => store.close())
  } catch (error) {
    await store.close()
    throw error
  }
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
