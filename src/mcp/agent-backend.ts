/**
 * The backend an agent's calls go through, for both transports: every request asks the API to render
 * TOKEN as the placeholder, and with read-only to refuse every write (src/http/agent-headers.ts).
 * The refusals are the API's: this only marks the requests.
 */
import {Client, type Backend} from '../client/backend.js'
import {HIDE_TOKEN_HEADER, READ_ONLY_HEADER} from '../http/agent-headers.js'
import {CLIENT_HEADER, DOOR_HEADER} from '../core/journal/types.js'

export function agentBackend(backend: Backend, readOnly: boolean, clientName?: () => string | null | undefined): Backend {
  return {
    kind: backend.kind,
    description: readOnly ? `${backend.description} (read-only)` : backend.description,
    baseUrl: backend.baseUrl,
    fetch(path, init = {}) {
      const headers = new Headers(init.headers)
      headers.set(HIDE_TOKEN_HEADER, '1')
      if (readOnly) headers.set(READ_ONLY_HEADER, '1')
      // The journal's door: `mcp`, with the name the MCP client gave in its initialize (docs/history.md).
      headers.set(DOOR_HEADER, 'mcp')
      const name = clientName?.()
      if (name) headers.set(CLIENT_HEADER, name)
      else headers.delete(CLIENT_HEADER)
      return backend.fetch(path, {...init, headers})
    },
    close: () => backend.close(),
  }
}

/** The typed client of an agent's calls. */
export const agentClient = (backend: Backend, readOnly: boolean, clientName?: () => string | null | undefined) =>
  new Client(agentBackend(backend, readOnly, clientName))
