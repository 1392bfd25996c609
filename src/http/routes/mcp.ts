/**
 * `/svc/mcp`: the workspace as an MCP server over streamable HTTP (stateless, bearer token). The
 * SDK is loaded on the first MCP request only (src/mcp/http.ts). GET and DELETE answer 405: a
 * stateless server keeps no stream and no session.
 */
import {createRoute} from '@hono/zod-openapi'
import {Hono} from 'hono'
import {ERRORS, JsonObject, PRIVATE, json, z} from '../../core/contract/common.js'
import type {InProcessApp} from '../../mcp/http.js'
import type {AppEnv, Deps} from '../env.js'
import {MCP_PATH} from '../middleware/read-only.js'

const query = z.object({
  tools: z.string().optional().openapi({description: 'Tool groups listed: dbs, prompts, apps, flows (comma-separated; default all)'}),
  read_only: z.string().optional().openapi({description: '`1`: every write is refused by the API (as the `X-Svc-Read-Only` header)'}),
  allow_deletes: z.string().optional().openapi({description: '`1`: list the delete tools (each still needs the human\'s confirmation)'}),
})

export const mcpDocs = [
  createRoute({
    operationId: 'mcp', method: 'post', path: MCP_PATH, tags: ['agents'], security: PRIVATE,
    summary: 'Model Context Protocol (streamable HTTP, stateless): tools, prompts and resources of the workspace as the caller (docs/agents.md)',
    request: {query, body: {required: true, content: {'application/json': {schema: JsonObject}}}},
    responses: {200: json(JsonObject, 'The JSON-RPC answer'), 202: {description: 'A notification or response, accepted'}, ...ERRORS,
      406: json(JsonObject, 'The client does not accept application/json and text/event-stream')},
  }),
  createRoute({
    operationId: 'mcpStream', method: 'get', path: MCP_PATH, tags: ['agents'], security: PRIVATE,
    summary: 'No server-sent stream: the MCP endpoint is stateless', responses: {405: json(JsonObject, 'Method not allowed')},
  }),
  createRoute({
    operationId: 'mcpEndSession', method: 'delete', path: MCP_PATH, tags: ['agents'], security: PRIVATE,
    summary: 'No session to end: the MCP endpoint is stateless', responses: {405: json(JsonObject, 'Method not allowed')},
  }),
]

export function mcpRoutes(deps: Deps, root: InProcessApp) {
  const app = new Hono<AppEnv>()
  app.post(MCP_PATH, async (c) => (await import('../../mcp/http.js')).handleMcp(c, root, deps))
  const notAllowed = (c: import('hono').Context<AppEnv>) =>
    c.json({error: 'method not allowed: the MCP endpoint is stateless (POST only)'}, 405, {Allow: 'POST'})
  app.get(MCP_PATH, notAllowed)
  app.delete(MCP_PATH, notAllowed)
  return app
}
