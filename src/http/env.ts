import type {Principal} from '../core/auth/permissions.js'
import type {Services} from '../services/index.js'
import type {Store} from '../store/types.js'

/** What createApp needs from the outside world. Both transports build one of these. */
export interface Deps {
  store: Store
  /** What runs beside requests (flow runner, scheduler, render and compile pools, egress): made by
   *  createServices (src/services/) and stopped by whoever made them, before the store closes. */
  services: Services
  /** Folders of system prompt files, in increasing priority (the package's, then `--system-prompts`). */
  systemPromptsDirs: string[]
  /** Behind a proxy you trust: the client address is the right-most untrusted `X-Forwarded-For` hop, and
   *  `X-Forwarded-Proto: https` marks a secure request (src/http/client-ip.ts). */
  trustProxy?: boolean
  /** Where apps live, one origin each: a URL template with `{code}` as the first host label
   *  (`https://{code}.apps.example.com`). Default: `http://{code}.localhost:<port of the request>`.
   *  Needs `publicUrl` (the main origin apps send visitors back to). docs/security.md. */
  appsUrl?: string
  /** Largest accepted request body in bytes (default 5 MiB). */
  bodyLimit?: number
  /** Base URL the platform is reachable at (ACCOUNT_URL); default: the request's origin. */
  publicUrl?: string
  /** Rate limit of public database writes (create/update/delete) per visitor address; default from
   *  SVC_DB_PUBLIC_WRITES ("LIMIT/SECONDS"), else 120 per 60 s. `limit: 0` disables it. */
  dbPublicWrites?: {limit: number; windowSeconds: number}
  /** Quotas (src/core/quotas.ts: defaults and meaning); `svc serve --quota NAME=VALUE`. */
  quotas?: Partial<import('../core/quotas.js').Quotas>
  /** One line per event; never given a token or a secret. Default: silent. `fields` (a request id)
   *  are members of the JSON line with `--log-format json`, and ` key=value` words otherwise. */
  log?: (line: string, fields?: Record<string, string | number>) => void
  /** `svc serve --log-format json`: one entry per request (src/http/middleware/access-log.ts), instead of
   *  the human access line of `log`. */
  requestLog?: (entry: import('./middleware/access-log.js').RequestLogEntry) => void
}

/** Hono environment of the app. */
export interface AppEnv {
  Bindings: {
    /** Set only by the embedded transport (in-process `app.request`): act as this user id. */
    svcEmbeddedUserId?: number
    /** Set by @hono/node-server for real connections. */
    incoming?: import('node:http').IncomingMessage
    outgoing?: import('node:http').ServerResponse
  }
  Variables: {
    /** The signed-in user, or null for an anonymous request. */
    user: Principal | null
    /** The raw bearer token of this request (never logged, never returned except where the spec renders it). */
    token: string | null
    /** How the user was identified. */
    authVia: 'bearer' | 'session' | 'embedded' | 'app' | null
    /** A bearer token was sent but is not valid. */
    authFailed: boolean
    /** The bearer token is a read-only one (`svc admin user token LOGIN --read-only`): every write is refused. */
    readOnly?: boolean
    /** `X-Request-Id` of this request (src/http/middleware/request-id.ts). */
    requestId: string
    /** For the request log: the account a public call reached, and its visitor's digest (never the cookie). */
    logAccountId?: number
    logVisitor?: string
    /** On an app origin: the app this origin belongs to (src/http/app-origin/). */
    hostedApp?: import('../store/apps/types.js').AppRecord
  }
}
