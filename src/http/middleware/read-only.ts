import type {Context, MiddlewareHandler} from 'hono'
import {forbidden} from '../../core/errors.js'
import {MCP_PATH} from '../../core/contract/agents.js'
import {READ_ONLY_HEADER} from '../agent-headers.js'
import type {AppEnv} from '../env.js'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
/** GETs that can still change something: public methods that write, and connector calls (the upstream may write). */
const WRITING_GETS = /^\/svc\/(db\/.+\/(create|update|delete)(\/|$)|connector\/)/i

/** Refuses (403) every write of a request flagged read-only (`X-Svc-Read-Only`, any value: the MCP server sends it on every call of a read-only connection), whatever route and whoever asks. */
export const readOnlyRequests: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.header(READ_ONLY_HEADER) !== undefined) refuseWrites(c, 'this connection')
  await next()
}

/** Refuses (403) every write made with a read-only token (runs once the caller is identified). */
export const readOnlyTokens: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get('readOnly')) refuseWrites(c, 'this token')
  await next()
}

function refuseWrites(c: Context<AppEnv>, what: string): void {
  if (c.req.path === MCP_PATH) return
  if (!SAFE_METHODS.has(c.req.method) || WRITING_GETS.test(decoded(c.req.path))) throw forbidden(`read-only: ${what} may not change anything`)
}

function decoded(path: string): string {
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}
