/**
 * `/svc/mcp`: the workspace as an MCP server over streamable HTTP (stateless, bearer token). The
 * SDK is loaded on the first MCP request only (src/mcp/http.ts). GET and DELETE answer 405: a
 * stateless server keeps no stream and no session.
 */
import {Hono} from 'hono'
import {MCP_PATH} from '../../core/contract/agents.js'
import type {InProcessApp} from '../../mcp/http.js'
import type {AppEnv, Deps} from '../env.js'

export function mcpRoutes(deps: Deps, root: InProcessApp) {
  const app = new Hono<AppEnv>()
  app.post(MCP_PATH, async (c) => (await import('../../mcp/http.js')).handleMcp(c, root, deps))
  const notAllowed = (c: import('hono').Context<AppEnv>) =>
    c.json({error: 'method not allowed: the MCP endpoint is stateless (POST only)'}, 405, {Allow: 'POST'})
  app.get(MCP_PATH, notAllowed)
  app.delete(MCP_PATH, notAllowed)
  return app
}
