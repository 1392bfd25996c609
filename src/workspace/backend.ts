/** The backend side of a workspace: its resources in file form, and applying a planned change. */
import type {Client} from '../client/backend.js'
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
  const add = (id: string | number, r: Resource) => out.push({...r, id})
  for (const p of prompts) add(p.id, promptResource(p as unknown as PromptBody))
  for (const d of dbs) if (typeof d.code === 'string' && d.code) add(d.id, dbResource(d))
  for (const a of apps) add(a.id, appResource(a))
  const names = new Map<string, number>()
  for (const d of dashboards.filter((x) => x.editable)) {
    const base = slug(String(d.name))
    const n = (names.get(base) ?? 0) + 1
    names.set(base, n)
    add(d.id, dashboardResource(d, n === 1 ? base : `${base}-${n}`))
  }
  for (const r of resources) {
    if (r.kind === 'svc/custom_flow') add(r.id, flowResource(r))
    else if (r.kind === 'svc/custom_connector') add(r.id, connectorResource(r))
  }
  return out
}

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

export async function applyChange(client: Client, change: Change, secrets: Record<string, string>): Promise<void> {
  const [create, update, remove] = OPS[change.kind]
  const id = String(change.id)
  // The bodies are the workspace files' own shapes (checked by the server), hence the loose casts.
  if (change.action === 'delete') await client.call(remove, {params: {id}})
  else if (change.action === 'create') await client.call(create, {body: requestBody(change, secrets) as never})
  else await client.call(update, {params: {id}, body: requestBody(change, secrets) as never})
}
