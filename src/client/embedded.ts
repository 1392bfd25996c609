import {createApp} from '../http/app.js'
import {openStore} from '../store/index.js'
import {checkDataDir, embeddedSystemPromptsDirs, inProcessBackend, resolveActingUser, type EmbeddedOptions} from './acting-user.js'
import type {Backend} from './backend.js'

export type {EmbeddedOptions} from './acting-user.js'

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
    return inProcessBackend(app, dataDir, user, () => store.close())
  } catch (error) {
    store.close()
    throw error
  }
}
