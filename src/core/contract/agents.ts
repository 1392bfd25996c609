/**
 * `/svc/mcp`, the workspace as an MCP server (docs/agents.md): its operations in the contract. They
 * are not in ROUTES: the typed client does not call them (an MCP client speaks JSON-RPC to them).
 */
import {createRoute} from '@hono/zod-openapi'
import {ERRORS, JsonObject, PRIVATE, json, z} from './common.js'

/** The MCP endpoint: its POSTs carry protocol messages, not writes (it passes the read-only flag on to the calls it makes). */
export const MCP_PATH = '/svc/mcp'

const query = z.object({
  tools: z.string().optional().openapi({description: 'Tool groups listed: dbs, prompts, apps, flows, history (comma-separated; default all)'}),
  read_only: z.string().optional().openapi({description: '`1`: every write is refused by the API (as the `X-Svc-Read-Only` header)'}),
  allow_deletes: z.string().optional().openapi({description: '`1`: list the delete tools (each still needs the human\'s confirmation)'}),
})

/** The MCP endpoint's three operations (served by src/http/routes/mcp.ts; described here, beside the rest of the contract). */
export const agentRoutes = [
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
