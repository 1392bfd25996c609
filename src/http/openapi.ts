/** The OpenAPI 3.1 document of the API, generated from the route definitions the app serves. */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {OpenAPIHono} from '@hono/zod-openapi'
import {PACKAGE_ROOT} from '../paths.js'
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
    description: 'The browser session set by `POST /svc/login`; a state-changing request must come from the server\'s own origin',
  })
  app.openAPIRegistry.registerComponent('securitySchemes', 'app_session', {
    type: 'apiKey', in: 'cookie', name: APP_SESSION_COOKIE,
    description: 'On an app\'s own origin: the sign-in scoped to that app (set by `/_svc/signin`)',
  })
}

/** The document of `app` (every route registered in it and its sub-routers). */
export function openapiDocument(app: OpenAPIHono<AppEnv>, version: string, serverUrl?: string) {
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {...OPENAPI_INFO, version},
    servers: serverUrl ? [{url: serverUrl}] : undefined,
    tags: ['account', 'prompts', 'dashboards', 'apps', 'pages', 'dbs', 'records', 'public methods', 'flows', 'crons', 'contract']
      .map((name) => ({name})),
  })
}

/** The package's version (the document's `info.version`). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {version: string}).version
}
