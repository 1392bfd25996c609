import {relative} from 'node:path'
import {createApp} from '../http/app.js'
import {openStore} from '../store/index.js'
import {checkDataDir, embeddedSystemPromptsDirs, resolveActingUser, type EmbeddedOptions} from './acting-user.js'
import type {Backend} from './backend.js'

export const EMBEDDED_ORIGIN = 'http://localhost'

export type {EmbeddedOptions} from './acting-user.js'
export {resolveActingUser} from './acting-user.js'

/** The same Hono app, called in-process over a local data dir: no socket, same routes and errors. */
export async function embeddedBackend(options: EmbeddedOptions): Promise<Backend> {
  const dataDir = checkDataDir(options)
  const store = openStore(dataDir)
  try {
    const user = await resolveActingUser(store.accounts, options)
    const app = createApp({
      store,
      systemPromptsDirs: embeddedSystemPromptsDirs(options),
      publicUrl: process.env.SVC_PUBLIC_URL,
    })
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
        store.close()
      },
    }
  } catch (error) {
    store.close()
    throw error
  }
}
