/**
 * The door a client's writes are journaled under (docs/history.md): the CLI sends `X-Svc-Door: cli`,
 * the MCP server `mcp` with its client's name. These headers say how a write was made; they grant
 * nothing (the caller is who its token says), and the server takes only `cli` and `mcp` from them.
 */
import {CLIENT_HEADER, DOOR_HEADER} from '../core/journal/types.js'
import type {Backend} from './backend.js'

export function withDoor(backend: Backend, door: 'cli' | 'mcp', client?: () => string | null | undefined): Backend {
  return {
    ...backend,
    fetch(path, init = {}) {
      const headers = new Headers(init.headers)
      // A door set by a wrapper outside this one (the MCP server's agent backend over the CLI's) stands.
      if (!headers.has(DOOR_HEADER)) {
        headers.set(DOOR_HEADER, door)
        const name = client?.()
        if (name) headers.set(CLIENT_HEADER, name)
        else headers.delete(CLIENT_HEADER)
      }
      return backend.fetch(path, {...init, headers})
    },
    close: () => backend.close(),
  }
}
