/**
 * Checks every answer the scenario transports see against the OpenAPI document the app serves:
 * the path and method are in it (or the answer is a JSON 4xx `{error}`), the status is one of
 * the operation's responses, the content type is one it declares (JSON with `charset=utf-8`) and
 * a JSON body matches the response's schema. A mismatch fails the test that made the request.
 * With SVC_CONTRACT_LOG=file, each exchange is also appended to that file as one JSON line.
 */
import {appendFileSync} from 'node:fs'
import SwaggerParser from '@apidevtools/swagger-parser'
import {Ajv2020} from 'ajv/dist/2020.js'
import type {ValidateFunction} from 'ajv'
import {createApp} from '../../src/http/app.js'
import {createServices} from '../../src/services/index.js'
import type {Store} from '../../src/store/types.js'

interface MediaType {schema?: object}
interface ResponseObject {content?: Record<string, MediaType>}
interface Operation {operationId: string; responses: Record<string, ResponseObject>}
interface Document {paths: Record<string, Record<string, Operation>>}

interface Compiled {
  pattern: RegExp
  template: string
  methods: Record<string, Operation>
}

let compiled: Promise<{routes: Compiled[]; validator: (schema: object) => ValidateFunction}> | undefined

/** The document of the app's routes (no store needed to describe them), dereferenced. */
export async function contractDocument(): Promise<Document> {
  const app = createApp({store: {} as Store, services: createServices({} as Store), systemPromptsDirs: []})
  const doc = await (await app.request('http://localhost/svc/openapi.json')).json()
  return (await SwaggerParser.dereference(doc)) as unknown as Document
}

function load() {
  compiled ??= (async () => {
    const doc = await contractDocument()
    const ajv = new Ajv2020({strict: false, validateFormats: false, allErrors: true})
    const cache = new Map<object, ValidateFunction>()
    const validator = (schema: object) => {
      let v = cache.get(schema)
      if (!v) cache.set(schema, (v = ajv.compile(schema)))
      return v
    }
    const routes = Object.entries(doc.paths).map(([template, methods]) => ({
      template,
      methods,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
    }))
    // Static paths before templated ones (`/svc/prompts/system.json` is not `/svc/prompts/{id}.json`).
    routes.sort((a, b) => Number(a.template.includes('{')) - Number(b.template.includes('{')))
    return {routes, validator}
  })()
  return compiled
}

const ERROR_STATUSES = new Set([400, 401, 403, 404, 405, 413, 431])

/** The mismatches of one exchange (empty when it follows the document). */
export async function contractProblems(method: string, path: string, res: Response): Promise<string[]> {
  const {routes, validator} = await load()
  const url = new URL(path, 'http://localhost')
  const type = res.headers.get('content-type') ?? ''
  const media = type.split(';')[0]!.trim().toLowerCase()
  const text = method === 'HEAD' ? '' : await res.clone().text()
  const problems: string[] = []
  let body: unknown
  if (media === 'application/json') {
    if (!/;\s*charset=utf-8/i.test(type)) problems.push(`content type "${type}" has no charset=utf-8`)
    try {
      body = text === '' ? undefined : JSON.parse(text)
    } catch {
      problems.push('body is not JSON')
    }
  }
  const operation = routes.find((r) => r.pattern.test(url.pathname) && r.methods[method.toLowerCase()])?.methods[method.toLowerCase()]
  if (!operation) {
    // Not an operation of the document: only an error answer may come back.
    const isError = media === 'application/json' && body !== null && typeof body === 'object' && typeof (body as {error?: unknown}).error === 'string'
    // Headers over Node's limit: the HTTP server's 431 (src/http/client-errors.ts: a JSON `{error}`) comes before any route.
    if (!ERROR_STATUSES.has(res.status) || !isError) problems.push(`no operation in the document answers ${method} ${url.pathname} (got ${res.status})`)
    return problems
  }
  const response = operation.responses[String(res.status)] ?? operation.responses.default
  if (!response) return [...problems, `${operation.operationId}: status ${res.status} is not in the document`]
  const declared = response.content ?? {}
  if (text === '' && res.status !== 200) return problems
  if (Object.keys(declared).length === 0) {
    if (text !== '') problems.push(`${operation.operationId} ${res.status}: a body where the document says none`)
    return problems
  }
  const match = declared[media]
  if (!match) return [...problems, `${operation.operationId} ${res.status}: content type "${type}" not in ${Object.keys(declared).join(', ')}`]
  if (media === 'application/json' && match.schema) {
    const validate = validator(match.schema)
    if (!validate(body)) {
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')
      problems.push(`${operation.operationId} ${res.status}: body does not match the schema: ${errors}; body: ${text.slice(0, 300)}`)
    }
  }
  return problems
}

/**
 * A fetch that checks every answer against the document (throws on a mismatch). Answers of an app's
 * own origin (an absolute URL on another host than `origin`) are not the API: they are left to
 * test/security/app-origin.test.ts (docs/security.md "Apps on their own origin").
 */
export function checkedFetch(fetch: (path: string, init?: RequestInit) => Promise<Response>, origin?: string) {
  return async (path: string, init?: RequestInit): Promise<Response> => {
    const res = await fetch(path, init)
    if (origin && /^https?:\/\//.test(path) && new URL(path).host !== new URL(origin).host) return res
    // A followed redirect (fetch over HTTP) answers for the GET of where it led, not for the request.
    const method = res.redirected ? 'GET' : (init?.method ?? 'GET').toUpperCase()
    if (res.redirected) path = new URL(res.url).pathname + new URL(res.url).search
    const problems = await contractProblems(method, path, res)
    const log = process.env.SVC_CONTRACT_LOG
    if (log) appendFileSync(log, JSON.stringify({method, path, status: res.status, type: res.headers.get('content-type'), problems}) + '\n')
    if (problems.length > 0) throw new Error(`answer outside the API contract: ${method} ${path.length > 200 ? `${path.slice(0, 200)}…` : path}\n  ${problems.join('\n  ')}`)
    return res
  }
}
