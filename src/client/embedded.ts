import type {UserView} from '../store/accounts/types.js'
import {EMBEDDED_ORIGIN, embeddedDescription, embeddedSystemPromptsDirs, type EmbeddedOptions} from './acting-user.js'
import type {Backend} from './backend.js'

export type {EmbeddedOptions} from './acting-user.js'

/** The same Hono app, called in-process over a local data dir: no socket, same routes and errors. */
export async function embeddedBackend(options: EmbeddedOptions): Promise<Backend> {
  const {openEmbeddedApp} = await import('../http/embedded.js')
  const opened = await openEmbeddedApp({
    dataDir: options.dataDir, databaseUrl: options.databaseUrl, as: options.as,
    systemPromptsDirs: embeddedSystemPromptsDirs(options), publicUrl: process.env.SVC_PUBLIC_URL,
  })
  // The services stop before the store closes (a flow a command started finishes, or is aborted, and is recorded).
  return inProcessBackend(opened.app, opened.dataDir, opened.user, () => opened.close())
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
