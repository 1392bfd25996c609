// What the backup tests share: the CLI flags of a store, an API call in-process, and the app over a
// restored or imported store (its services stopped before the store closes, as a server does).
import {createApp, type SvcApp} from '../../src/http/app.js'
import {PACKAGE_SYSTEM_PROMPTS} from '../../src/paths.js'
import {createServices} from '../../src/services/index.js'
import {openStoreAt, type Store} from '../../src/store/index.js'

export type Target = {dataDir: string; databaseUrl?: string}

/** `--database-url URL` or `--data DIR`. */
export const targetFlags = (t: Target) => (t.databaseUrl ? ['--database-url', t.databaseUrl] : ['--data', t.dataDir])

/** One request to `app` as the token's user: status, ETag, text and parsed JSON. */
export async function call(app: SvcApp, token: string, method: string, path: string, body?: unknown) {
  const res = await app.request(`http://127.0.0.1${path}`, {
    method, headers: {authorization: `Bearer ${token}`, ...(body ? {'content-type': 'application/json'} : {})},
    body: body ? JSON.stringify(body) : undefined,
  })
  const text = await res.text()
  return {status: res.status, etag: res.headers.get('etag'), text, json: text ? JSON.parse(text) : undefined}
}

/** The app over the store of `target`; `close()` stops its services, then closes the store. */
export async function appOver(target: Target): Promise<{app: SvcApp; store: Store; close(): Promise<void>}> {
  const store = await openStoreAt({...target, sqlite: target.databaseUrl ? undefined : true})
  const services = createServices(store)
  return {
    app: createApp({store, services, systemPromptsDirs: [PACKAGE_SYSTEM_PROMPTS]}), store,
    async close() {
      await services.stop()
      await store.close()
    },
  }
}
