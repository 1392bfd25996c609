/**
 * The contract served: `GET /svc/openapi.json` (generated from the contract on the first request,
 * then cached) and `/svc/docs`, Swagger UI from the swagger-ui-dist package's own files (no CDN).
 */
import {readFile} from 'node:fs/promises'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {contractRoutes as routes} from '../../core/contract/routes.js'
import {notFound} from '../../core/errors.js'
import {createRouter, handle, param} from '../router.js'
import {openapiDocument, packageVersion} from '../openapi.js'

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/svc/docs/favicon-32x32.png"><link rel="stylesheet" href="/svc/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/svc/docs/swagger-ui-bundle.js"></script>
<script src="/svc/docs/swagger-ui-standalone-preset.js"></script>
<script src="/svc/docs/init.js"></script>
</body></html>`

const INIT = `window.ui = SwaggerUIBundle({url: '/svc/openapi.json', dom_id: '#swagger-ui', deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout', validatorUrl: null})`

export function apiDocsRoutes() {
  const app = createRouter()
  let document: string | undefined
  const files = new Map<string, Buffer>()
  const dir = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

  handle(app, routes.getOpenApiDocument, (c) => {
    document ??= JSON.stringify(openapiDocument(packageVersion()))
    return c.body(document, 200, {'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache'})
  })

  handle(app, routes.apiReference, (c) => c.html(PAGE))

  handle(app, routes.apiReferenceAsset, async (c) => {
    const file = param(c, 'file')
    if (file === 'init.js') return c.body(INIT, 200, {'Content-Type': 'text/javascript; charset=utf-8'})
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined
    if (!type) throw notFound()
    let data = files.get(file)
    if (!data) files.set(file, (data = await readFile(join(dir(), file))))
    return c.body(new Uint8Array(data), 200, {'Content-Type': type, 'Cache-Control': 'public, max-age=86400'})
  })
  return app
}
