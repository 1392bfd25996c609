import {existsSync} from 'node:fs'
import {relative, resolve} from 'node:path'
import {SvcError} from '../core/errors.js'
import {createApp} from '../http/app.js'
import {PACKAGE_SYSTEM_PROMPTS} from '../paths.js'
import {dataFile} from '../store/sqlite.js'
import {openStore} from '../store/index.js'
import type {Backend} from './backend.js'

export const EMBEDDED_ORIGIN = 'http://localhost'

export interface EmbeddedOptions {
  dataDir: string
  /** Act as this login (default: the first admin of the first account). */
  as?: string
  systemPromptsDir?: string
}

/** The same Hono app, called in-process over a local data dir: no socket, same routes and errors. */
export async function embeddedBackend(options: EmbeddedOptions): Promise<Backend> {
  const dataDir = resolve(options.dataDir)
  if (!existsSync(dataFile(dataDir))) {
    throw new SvcError('usage', 0, `no svc data in ${options.dataDir}`, undefined,
      `create it with: svc admin user add LOGIN --role admin --data ${options.dataDir}`)
  }
  const store = openStore(dataDir)
  try {
    const account = await store.accounts.firstAccount()
    let user = null
    if (options.as) {
      for (const a of await store.accounts.listAccounts()) {
        user = await store.accounts.findUserByLogin(a.id, options.as)
        if (user) break
      }
      if (!user) throw new SvcError('unauthorized', 401, `no user "${options.as}" in ${options.dataDir}`, undefined,
        `add one with: svc admin user add ${options.as} --data ${options.dataDir}`)
    } else if (account) {
      user = await store.accounts.defaultUser(account.id)
    }
    if (!user) throw new SvcError('unauthorized', 401, `no user in ${options.dataDir}`, undefined,
      `add one with: svc admin user add admin --role admin --data ${options.dataDir}`)
    const app = createApp({
      store,
      systemPromptsDirs: [PACKAGE_SYSTEM_PROMPTS, ...(options.systemPromptsDir ? [resolve(options.systemPromptsDir)] : [])],
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
