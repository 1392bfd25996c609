/**
 * Who writes and through which door (docs/history.md): every request runs inside the journal's
 * context, so each write it makes is journaled with its actor, door and request id.
 * - an app origin and the public methods (`/svc/db/:code/:method`): door `public`, actor a visitor
 *   (or the signed-in user of that account);
 * - a console session: `console`;
 * - `X-Svc-Door: cli` or `mcp` (the CLI's and the MCP server's backends send it; `X-Svc-Client` names
 *   the MCP client): that door. The header grants nothing: it only says how the caller made the write;
 * - anything else (a bearer token, the embedded backend without the header): `api`.
 */
import type {Context, MiddlewareHandler} from 'hono'
import {clientName, CLIENT_HEADER, DECLARED_DOORS, type Door, DOOR_HEADER, type JournalWho} from '../../core/journal/types.js'
import type {AppEnv, Deps} from '../env.js'

const PUBLIC_PATH = /^\/svc\/db\/[^/]+\/[^/]+/

export function journalWho(deps: Deps): MiddlewareHandler<AppEnv> {
  return (c, next) => {
    // A store without a journal (the contract document's app is made over none) journals nothing.
    const context = deps.store.journal?.context
    return context ? context.run(whoOf(c), next) : next()
  }
}

export function whoOf(c: Context<AppEnv>): JournalWho {
  const user = c.get('user')
  // The id the request answers in X-Request-Id (src/http/middleware/request-id.ts, which runs first).
  const requestId = c.get('requestId')
  const asUser = user ? {type: 'user' as const, id: String(user.id), name: user.login} : null
  if (c.get('hostedApp') || PUBLIC_PATH.test(c.req.path)) {
    return {door: 'public', client: null, actor: asUser ?? {type: 'visitor', id: null, name: null}, requestId}
  }
  const actor = asUser ?? {type: 'user' as const, id: null, name: null}
  if (c.get('authVia') === 'session') return {door: 'console', client: null, actor, requestId}
  const declared = c.req.header(DOOR_HEADER)?.trim().toLowerCase()
  const door: Door = declared && DECLARED_DOORS.has(declared) ? (declared as Door) : 'api'
  return {door, client: door === 'mcp' ? clientName(c.req.header(CLIENT_HEADER)) : null, actor, requestId}
}
