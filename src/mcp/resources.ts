/**
 * Resources: database schemas (`svc://dbs/CODE/schema`), app sources (`svc://apps/ID/source`) and
 * prompt templates (`svc://prompts/CODE/template`), each read through the API as the caller. All
 * three are workspace data, wrapped in boundary tags as tool results are; so are the names of
 * `resources/list` (a db's, an app's or a prompt's name).
 */
import {ErrorCode, McpError} from '@modelcontextprotocol/sdk/types.js'
import type {Client} from '../client/backend.js'
import {inlineBoundary, wrapData} from './boundary.js'
import {PATH_SEGMENT} from './call.js'
import type {CatalogPrompt} from './prompts.js'

export const RESOURCE_TEMPLATES = [
  {uriTemplate: 'svc://dbs/{code}/schema', name: 'db-schema', title: 'Database schema', description: 'A database\'s schema (by code or id)', mimeType: 'application/json'},
  {uriTemplate: 'svc://apps/{id}/source', name: 'app-source', title: 'App source', description: 'An app\'s source code (by id or url_code)', mimeType: 'text/plain'},
  {uriTemplate: 'svc://prompts/{code}/template', name: 'prompt-template', title: 'Prompt template', description: 'The Liquid template that wins the cascade for a code', mimeType: 'text/markdown'},
]

const SEGMENT = `(${PATH_SEGMENT})`
const DB_URI = new RegExp(`^svc://dbs/${SEGMENT}/schema$`)
const APP_URI = new RegExp(`^svc://apps/${SEGMENT}/source$`)
const PROMPT_URI = new RegExp(`^svc://prompts/${SEGMENT}/template$`)

export async function listResources(client: Client, prompts: () => Promise<CatalogPrompt[]>) {
  const [dbs, apps, templates] = await Promise.all([client.call('listDbs'), client.call('listApps'), prompts()])
  const wrap = inlineBoundary()
  return [
    ...dbs.map((db) => ({uri: `svc://dbs/${db.code ?? db.id}/schema`, name: `${wrap(db.name)} schema`, mimeType: 'application/json'})),
    ...apps.map((app) => ({uri: `svc://apps/${app.id}/source`, name: `${wrap(app.name)} source`, mimeType: 'text/plain'})),
    ...templates.map((p) => ({uri: `svc://prompts/${p.code}/template`, name: `${wrap(p.name)} template`, mimeType: 'text/markdown'})),
  ]
}

export async function readResource(client: Client, prompts: () => Promise<CatalogPrompt[]>, uri: string) {
  let m = DB_URI.exec(uri)
  if (m) {
    const db = await client.call('getDb', {params: {id: m[1]!}})
    return {uri, mimeType: 'application/json', text: wrapData(JSON.stringify({id: db.id, name: db.name, code: db.code, schema: db.schema, public_methods: db.public_methods}))}
  }
  m = APP_URI.exec(uri)
  if (m) {
    const app = await client.call('getApp', {params: {id: m[1]!}})
    return {uri, mimeType: 'text/plain', text: wrapData(app.source_code)}
  }
  m = PROMPT_URI.exec(uri)
  if (m) {
    const prompt = (await prompts()).find((p) => p.code === m![1])
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `no prompt "${m[1]}"`)
    return {uri, mimeType: 'text/markdown', text: wrapData(prompt.content)}
  }
  throw new McpError(ErrorCode.InvalidParams, `unknown resource ${uri.slice(0, 200)}; use ${RESOURCE_TEMPLATES.map((t) => t.uriTemplate).join(', ')}`)
}
