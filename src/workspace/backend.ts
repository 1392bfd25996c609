/** The backend side of a workspace: its resources in file form, and applying a planned change. */
import type {Client} from '../client/backend.js'
import {operationRequest, readAnswer} from '../client/typed.js'
import {isSvcError, SvcError} from '../core/errors.js'
import type {OperationId} from '../core/contract/operations.js'
import type {Change, RemoteResource} from '../core/workspace/plan.js'
import {appResource, connectorResource, dashboardResource, dbResource, flowResource, promptResource, secretEnvName, slug, type Kind, type PromptBody, type Resource} from '../core/workspace/resources.js'

type Row = Record<string, unknown> & {id: string | number}

/** Everything of the acting user's workspace on the backend, in canonical file form. */
export async function remoteResources(client: Client): Promise<RemoteResource[]> {
  const [prompts, dbs, apps, dashboards, resources] = await Promise.all([
    client.call('listPrompts'),
    client.call('listDbs'),
    client.call('listApps'),
    client.call('listDashboards'),
    client.call('listResources'),
  ])
  const out: RemoteResource[] = []
  const add = (id: string | number, r: Resource, row?: object) => out.push({...r, id, ...(row ? {row: row as Record<string, unknown>} : {})})
  for (const p of prompts) add(p.id, promptResource(p as unknown as PromptBody), p)
  for (const d of dbs) if (typeof d.code === 'string' && d.code) add(d.id, dbResource(d), d)
  for (const a of apps) add(a.id, appResource(a), a)
  const names = new Map<string, number>()
  for (const d of dashboards.filter((x) => x.editable)) {
    const base = slug(String(d.name))
    const n = (names.get(base) ?? 0) + 1
    names.set(base, n)
    add(d.id, dashboardResource(d, n === 1 ? base : `${base}-${n}`), d)
  }
  for (const r of resources) {
    if (r.kind === 'svc/custom_flow') add(r.id, flowResource(r))
    else if (r.kind === 'svc/custom_connector') add(r.id, connectorResource(r))
  }
  return out
}

/** The GET of each kind that answers an ETag (flows and connectors answer none: their writes apply as before). */
const TAGGED_GETS: Partial<Record<Kind, OperationId>> = {prompt: 'getPrompt', db: 'getDb', app: 'getApp', dashboard: 'getDashboard'}

/** A row as a version: a db's record count is no part of it (a list does not count). */
const version = (kind: Kind, row: unknown) => JSON.stringify(kind === 'db' ? {...(row as object), records_count: undefined} : row)

/**
 * Sets the ETag of each update and delete to the version its diff was made on (docs/cli.md
 * "svc push"). The tag is read right after the lists, by one GET per change; a resource whose GET
 * differs from the list it was diffed from changed meanwhile: nothing is applied, push again.
 */
export async function tagChanges(client: Client, changes: Change[], remote: RemoteResource[]): Promise<void> {
  const byKey = new Map(remote.map((r) => [r.key, r]))
  const tagOne = async (change: Change) => {
    const get = TAGGED_GETS[change.kind]
    const there = byKey.get(change.key)
    if (!get || change.action === 'create' || !there?.row) return
    const {method, path, options} = operationRequest(get, {params: {id: String(there.id)}})
    const res = await client.raw(method, path, options).catch((error: unknown) => {
      throw isSvcError(error) && error.code === 'not_found' ? changedMeanwhile(change, 'while the diff was made (deleted)') : error
    })
    const now = await readAnswer(res)
    if (version(change.kind, now) !== version(change.kind, there.row)) throw changedMeanwhile(change, 'while the diff was made')
    change.etag = res.headers.get('etag') ?? undefined
  }
  // A few at a time: a large push does not flood the server (or its rate limit).
  for (let i = 0; i < changes.length; i += 8) await Promise.all(changes.slice(i, i + 8).map(tagOne))
}

/** The refusal of a change whose resource changed on the backend after its diff was made. */
export const changedMeanwhile = (change: Change, when: string) =>
  new SvcError('conflict', 412, `${change.key} changed on the backend ${when}: nothing was applied to it`, {key: change.key},
    'run svc push again to see the diff against the current version')

/** The API operations that create, update and delete each kind. */
const OPS = {
  prompt: ['createPrompt', 'updatePrompt', 'deletePrompt'],
  db: ['createDb', 'updateDb', 'deleteDb'],
  app: ['createApp', 'updateApp', 'deleteApp'],
  dashboard: ['createDashboard', 'updateDashboard', 'deleteDashboard'],
  flow: ['createResource', 'updateResource', 'deleteResource'],
  connector: ['createResource', 'updateResource', 'deleteResource'],
} as const satisfies Record<Kind, readonly [OperationId, OperationId, OperationId]>

const withoutNulls = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null))

/** The API body of a create or update. Connector secrets come from the environment or the secrets file. */
function requestBody(change: Change, secrets: Record<string, string>): unknown {
  const body = change.local!.body
  switch (change.kind) {
    case 'prompt': return {prompt: withoutNulls(body)}
    case 'db': return {db: body}
    case 'app': return {app: body}
    case 'dashboard': {
      const {name, layout, is_default, context, shared} = body
      return {dashboard: change.action === 'create' ? {name, layout, is_default, context, shared} : {name, layout, is_default}}
    }
    case 'flow': return {resource: {kind: 'svc/custom_flow', ...body}}
    case 'connector': {
      const code = String(body.code)
      const secret = process.env[secretEnvName(code)] ?? secrets[code]
      return {resource: {kind: 'svc/custom_connector', ...body, ...(secret ? {secret_token: secret} : {})}}
    }
  }
}

/** Applies a change; a create or update keeps the backend's answer in `change.saved`. */
export async function applyChange(client: Client, change: Change, secrets: Record<string, string>): Promise<void> {
  const [create, update, remove] = OPS[change.kind]
  const id = String(change.id)
  // The bodies are the workspace files' own shapes (checked by the server), hence the loose casts.
  const headers: Record<string, string> = change.etag ? {'if-match': change.etag} : {}
  if (change.action === 'delete') await client.call(remove, {params: {id}, headers})
  else if (change.action === 'create') change.saved = await client.call(create, {body: requestBody(change, secrets) as never}) as unknown as Record<string, unknown>
  else change.saved = await client.call(update, {params: {id}, headers, body: requestBody(change, secrets) as never}) as unknown as Record<string, unknown>
}

/** The files of what the backend stored for an applied create or update (its answer in file form), else the folder's. */
export function storedFiles(change: Change): Record<string, string> {
  const saved = change.saved
  const local = change.local?.files ?? {}
  if (!saved || typeof saved !== 'object') return local
  try {
    switch (change.kind) {
      case 'prompt': return promptResource(saved as unknown as PromptBody).files
      case 'db': return dbResource(saved).files
      case 'app': return appResource(saved).files
      case 'dashboard': return dashboardResource(saved, change.key.slice('dashboards/'.length, -'.json'.length)).files
      case 'flow': return flowResource(saved).files
      case 'connector': return connectorResource(saved).files
    }
  } catch {
    return local
  }
}
