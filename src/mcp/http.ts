/**
 * `/svc/mcp`: the MCP server over streamable HTTP, stateless (a server per request, no session),
 * for a caller with a bearer token. Its calls go to the same app in-process with the caller's token
 * (and the peer address, for rate limits), so they pass the API's own auth, limits and validation.
 * Options in the query string: `tools=dbs,prompts`, `read_only=1` (or the `X-Svc-Read-Only` header),
 * `allow_deletes=1` (no effect here: a stateless connection cannot ask the human, so deletes are refused).
 */
import {WebStandardStreamableHTTPServerTransport} from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type {Context} from 'hono'
import type {Backend, Client} from '../client/backend.js'
import {badRequest, forbidden} from '../core/errors.js'
import {DEFAULT_BODY_LIMIT} from '../http/app.js'
import type {AppEnv, Deps} from '../http/env.js'
import {requireUser} from '../http/middleware/auth.js'
import {READ_ONLY_HEADER} from '../http/agent-headers.js'
import {packageVersion} from '../http/openapi.js'
import {agentClient} from './agent-backend.js'
import {createMcpServer, toolCatalog} from './server.js'
import {parseGroups} from './tools.js'

/** The root app, called in-process (`app.request`). */
export interface InProcessApp {
  request(input: string, init: RequestInit, env: AppEnv['Bindings']): Response | Promise<Response>
}

const isOn = (v: string | undefined) => v !== undefined && /^(1|true|yes)$/i.test(v)

/** The app in-process as the caller: their bearer token and the connection's peer. */
function callerBackend(app: InProcessApp, c: Context<AppEnv>, token: string): Backend {
  const origin = new URL(c.req.url).origin
  const env: AppEnv['Bindings'] = c.env?.incoming ? {incoming: c.env.incoming} : {}
  return {
    kind: 'remote',
    description: `${origin}/svc/mcp`,
    baseUrl: origin,
    fetch(path, init = {}) {
      const headers = new Headers(init.headers)
      headers.set('authorization', `Bearer ${token}`)
      return Promise.resolve(app.request(origin + path, {...init, headers}, env))
    },
    async close() {},
  }
}

let version: string | undefined
/** The tools of an app, built once from its OpenAPI document. */
const catalogs = new WeakMap<InProcessApp, ReturnType<typeof toolCatalog>>()

export async function handleMcp(c: Context<AppEnv>, app: InProcessApp, deps: Deps): Promise<Response> {
  const user = requireUser(c)
  const token = c.get('token')
  if (c.get('authVia') !== 'bearer' || !token) throw forbidden('the MCP endpoint takes a bearer token (Authorization: Bearer …), not a browser session')
  let groups
  try {
    groups = parseGroups(c.req.query('tools'))
  } catch (error) {
    throw badRequest((error as Error).message)
  }
  // A read-only token makes a read-only connection: its tools are the read ones, and the API refuses its writes anyway.
  const readOnly = isOn(c.req.query('read_only')) || c.req.header(READ_ONLY_HEADER) !== undefined || c.get('readOnly') === true
  // Stateless: a request that is not the initialize has no client name of its own; `?client=` names it then.
  let server: ReturnType<typeof createMcpServer> | undefined
  const client = agentClient(callerBackend(app, c, token), readOnly, () => server?.getClientVersion()?.name ?? c.req.query('client'))
  server = createMcpServer({
    client, groups, readOnly, allowDeletes: isOn(c.req.query('allow_deletes')), canAsk: false,
    log: deps.log, who: user.login, version: (version ??= packageVersion()),
  }, catalogOf(app, client))
  // The server's body limit, not the SDK's own default (4 MiB): a larger limit holds here as on every route.
  const maxRequestBodySize = deps.bodyLimit ?? DEFAULT_BODY_LIMIT
  const transport = new WebStandardStreamableHTTPServerTransport({sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize})
  await server.connect(transport)
  try {
    return await transport.handleRequest(c.req.raw)
  } finally {
    await server.close()
  }
}

function catalogOf(app: InProcessApp, client: Client): ReturnType<typeof toolCatalog> {
  let catalog = catalogs.get(app)
  if (!catalog) {
    catalog = toolCatalog(client)
    catalogs.set(app, catalog)
    catalog.catch(() => catalogs.delete(app))
  }
  return catalog
}
