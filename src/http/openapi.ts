/**
 * The OpenAPI 3.1 document of the API, generated from the contract's route definitions
 * (src/core/contract): the same definitions the app serves, so no app (and no store) is built to
 * print it. test/contract/openapi.test.ts checks every route the app serves is in it.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {OpenAPIHono} from '@hono/zod-openapi'
import {agentRoutes} from '../core/contract/agents.js'
import {ROUTES} from '../core/contract/routes.js'
import {PACKAGE_ROOT} from '../paths.js'
import {createRouter, describe} from './router.js'
import type {AppEnv} from './env.js'
import {APP_SESSION_COOKIE} from './app-origin/routes.js'
import {SESSION_COOKIE} from './middleware/auth.js'

export const OPENAPI_INFO = {
  title: 'svc API',
  description: 'Prompts, dashboards, apps, JSON databases (with public methods), connectors, flows and crons of a svc server. ' +
    'Validation errors answer 422 with a map of field name → messages; other caller errors answer `{"error": "..."}`.',
}

/** Adds the auth schemes the routes' `security` names. */
export function registerSecuritySchemes(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http', scheme: 'bearer', description: 'An API token (`svc admin user add` prints one)',
  })
  app.openAPIRegistry.registerComponent('securitySchemes', 'session', {
    type: 'apiKey', in: 'cookie', name: SESSION_COOKIE,
    description: 'The browser session set by `POST /svc/login` (named `__Host-svc_session` over https); a state-changing request must come from the server\'s own origin',
  })
  app.openAPIRegistry.registerComponent('securitySchemes', 'app_session', {
    type: 'apiKey', in: 'cookie', name: APP_SESSION_COOKIE,
    description: 'On an app\'s own origin: the sign-in scoped to that app (set by `/_svc/signin`; named `__Host-svc_app_session` over https)',
  })
}

interface Response {description: string; content?: Record<string, {schema: unknown}>}
const errorBody = (description: string): Response => ({description, content: {'application/json': {schema: {$ref: '#/components/schemas/Error'}}}})
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete'])

/**
 * What any operation may answer whatever its route says, because the server answers it before or
 * around the route: a path of the other origin (an app's own origin serves only the app's routes,
 * the main origin none of an app origin's) is a JSON 404; a declared body over the limit, a 413
 * (every method that may carry one); headers over Node's limit, a 431 (src/http/client-errors.ts); a bug, a 500.
 */
const SERVER_RESPONSES: Record<string, {response: Response; methods?: Set<string>}> = {
  404: {response: errorBody('Not found, or a route of the other origin (the main origin and an app\'s own origin serve different routes)')},
  413: {response: errorBody('Request body too large'), methods: BODY_METHODS},
  431: {response: errorBody('Request headers too large (answered by the HTTP server before any route)')},
  500: {response: errorBody('Internal error (never a stack trace)')},
}

/** Adds SERVER_RESPONSES to every operation of `doc`: a status it lacks, or JSON to a status it answers otherwise (an HTML 404). */
export function withServerResponses<D extends {paths?: object}>(doc: D): D {
  for (const methods of Object.values(doc.paths ?? {}) as Record<string, unknown>[]) {
    for (const [method, operation] of Object.entries(methods)) {
      const responses = (operation as {responses?: Record<string, Response>}).responses
      if (!responses) continue
      for (const [status, {response, methods}] of Object.entries(SERVER_RESPONSES)) {
        if (methods && !methods.has(method)) continue
        const own = responses[status]
        if (!own) responses[status] = structuredClone(response)
        else if (own.content && response.content && !own.content['application/json']) own.content['application/json'] = structuredClone(response.content['application/json']!)
      }
    }
  }
  return doc
}

/** The document of every route of the contract, with the answers of the server itself. */
export function openapiDocument(version: string, serverUrl?: string) {
  const registry = createRouter()
  registerSecuritySchemes(registry)
  describe(registry, ...Object.values(ROUTES), ...agentRoutes)
  return withServerResponses(registry.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {...OPENAPI_INFO, version},
    servers: serverUrl ? [{url: serverUrl}] : undefined,
    tags: ['account', 'prompts', 'dashboards', 'apps', 'pages', 'dbs', 'records', 'public methods', 'flows', 'crons', 'contract']
      .map((name) => ({name})),
  }))
}

/** The package's version (the document's `info.version`). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {version: string}).version
}
