/**
 * Who writes and through which door (docs/history.md): every request runs inside the journal's
 * context, so each write it makes is journaled with its actor, door and request id.
 * - an app origin and the public methods (`/svc/db/:code/:method`): door `public`, actor a visitor
 *   (or the signed-in user of that account);
 * - a console session: `console`;
 * - `X-Svc-Door: cli` or `mcp` (the CLI's and the MCP server's backends send it; `X-Svc-Client` names
 *   the MCP client): that door. The header grants nothing: it only says how the caller made the write;
 * - a flow run's connector call to this server (header `X-Svc-Flow-Run` naming a pending run of the
 *   account, made with the secret of one of the account's connectors as its bearer token): `flow`, actor
 *   the run. Such a write starts no db trigger (docs/flows.md "Flows on db changes": the loop guard);
 * - anything else (a bearer token, the embedded backend without the header): `api`.
 */
import {timingSafeEqual} from 'node:crypto'
import type {Context, MiddlewareHandler} from 'hono'
import {isUuid} from '../../core/flows/processes.js'
import {CONNECTOR_KIND} from '../../core/flows/resources.js'
import {FLOW_RUN_HEADER} from '../../services/flows/connector-client.js'
import {clientName, CLIENT_HEADER, DECLARED_DOORS, type Door, DOOR_HEADER, type JournalWho} from '../../core/journal/types.js'
import type {AppEnv, Deps} from '../env.js'

const PUBLIC_PATH = /^\/svc\/db\/[^/]+\/[^/]+/

export function journalWho(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // A store without a journal (the contract document's app is made over none) journals nothing.
    const context = deps.store.journal?.context
    if (!context) return next()
    const who = c.req.header(FLOW_RUN_HEADER) ? (await flowRunWho(c, deps)) ?? whoOf(c) : whoOf(c)
    return context.run(who, next)
  }
}

/** A write of a flow run through one of the account's connectors (see above), else null. */
async function flowRunWho(c: Context<AppEnv>, deps: Deps): Promise<JournalWho | null> {
  const runId = c.req.header(FLOW_RUN_HEADER)?.trim().toLowerCase()
  const user = c.get('user')
  const token = c.get('token')
  if (!runId || !isUuid(runId) || !user || !token || c.get('authVia') !== 'bearer' || c.get('hostedApp')) return null
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return null
  const run = await deps.store.flows.getProcess(user.accountId, runId)
  if (!run || run.status !== 'pending') return null
  const given = Buffer.from(token)
  for (const connector of await deps.store.flows.listResources(user.accountId, {kind: CONNECTOR_KIND})) {
    if (!connector.has_secret_token) continue
    const secret = Buffer.from((await deps.store.flows.resourceSecret(user.accountId, connector.id)) ?? '')
    if (secret.length === given.length && timingSafeEqual(secret, given)) {
      // A cron's run is the cron's doing (actor `cron`, its id); any other run's, the run's.
      const actor = run.trigger === 'cron' && run.cron_id !== null
        ? {type: 'cron' as const, id: String(run.cron_id), name: run.flow_code}
        : {type: 'flow' as const, id: run.id, name: run.flow_code}
      return {door: 'flow', client: null, actor, requestId: c.get('requestId')}
    }
  }
  return null
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
