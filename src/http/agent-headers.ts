/**
 * Request headers that only ever take power away, so any caller may send them. The MCP server sends
 * them on every call it makes for an agent (src/mcp/agent-backend.ts).
 */

/** Every write of the request is refused, whatever the route (middleware/read-only.ts). */
export const READ_ONLY_HEADER = 'x-svc-read-only'

/**
 * A render's `TOKEN` (and api_block's Authorization line) is the placeholder, never the caller's
 * bearer token (routes/prompts.ts): an agent acts through its connection (read-only, no deletes),
 * never with a token it could use around it, and the token never lands in a model's context.
 */
export const HIDE_TOKEN_HEADER = 'x-svc-hide-token'
