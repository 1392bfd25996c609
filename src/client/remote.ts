import type {Backend} from './backend.js'

/** Real HTTP to a server URL with a bearer token. */
export function remoteBackend(url: string, token: string | undefined, who?: string): Backend {
  const base = url.replace(/\/+$/, '')
  return {
    kind: 'remote',
    description: `remote: ${base}${who ? ` as ${who}` : ''}`,
    baseUrl: base,
    fetch(path, init = {}) {
      const headers = new Headers(init.headers)
      if (token) headers.set('authorization', `Bearer ${token}`)
      return fetch(base + path, {...init, headers})
    },
    async close() {},
  }
}
