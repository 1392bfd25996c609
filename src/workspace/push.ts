/** `svc push` and `svc dev` share this: read the folder, plan against the backend, apply. */
import type {Client} from '../client/backend.js'
import {SvcError} from '../core/errors.js'
import {planPush, type Change, type Plan, type RemoteResource} from '../core/workspace/plan.js'
import {parseWorkspace, type Resource} from '../core/workspace/resources.js'
import {planRefusal} from '../core/dbs/plan.js'
import {applyChange, changedMeanwhile, remoteResources, storedFiles, tagChanges} from './backend.js'
import {planDb} from './db-plan.js'
import {readFolder, readSecrets} from './folder.js'
import {SyncState} from './sync-state.js'

export interface FolderPlan extends Plan {
  /** The folder's files as read (path → text). */
  files: Record<string, string>
  local: Resource[]
  remote: RemoteResource[]
  /** Changes that would overwrite (or delete) what the backend changed since the folder last synced with it. */
  conflicts: Change[]
  state: SyncState
}

/** The keys of resources the backend changed since `state` recorded them (a change or a deletion on the backend). */
export function conflictsOf(changes: Change[], remote: RemoteResource[], state: SyncState): Change[] {
  const byKey = new Map(remote.map((r) => [r.key, r]))
  return changes.filter((c) => {
    const there = byKey.get(c.key)
    if (!there || c.action === 'create') return false
    return Object.entries(there.files).some(([path, text]) => state.recorded(path) !== undefined && !state.unchangedSince(path, text))
  })
}

/**
 * Plans the push of a folder. Each update and delete is tagged with the version its diff was made
 * on (If-Match), unless `force`: a forced push overwrites whatever the backend holds when it applies.
 */
export async function planFolder(client: Client, dir: string, options: {prune: boolean; force?: boolean}): Promise<FolderPlan> {
  const files = await readFolder(dir)
  const {resources, problems} = parseWorkspace(files)
  if (problems.length) throw new SvcError('usage', 0, `the workspace has ${problems.length} problem(s):\n  ${problems.join('\n  ')}`, undefined, 'fix the files, then push again')
  const remote = await remoteResources(client)
  const plan = planPush(resources, remote, options)
  if (!options.force) await tagChanges(client, plan.changes, remote)
  await planDbChanges(client, plan.changes, options.force === true)
  const state = await SyncState.load(dir, client.backend.description)
  return {...plan, files, local: resources, remote, conflicts: conflictsOf(plan.changes, remote, state), state}
}

/**
 * Each db create and update gets the server's plan (`POST /svc/dbs/plan.json`): the same diff,
 * data-loss and invalid-record checks as `svc db push`. The plan is made on the version the diff
 * was tagged with; another version means the db changed meanwhile (nothing is applied).
 */
async function planDbChanges(client: Client, changes: Change[], force: boolean): Promise<void> {
  for (const change of changes) {
    if (change.kind !== 'db' || change.action === 'delete' || !change.local) continue
    change.db = await planDb(client, change.local.body, change.action === 'update' ? String(change.id) : undefined)
    if (!force && change.etag && change.db.etag !== change.etag) throw changedMeanwhile(change, 'while the diff was made')
  }
}

/** Why the db changes of a plan need --force (data they drop, records they leave invalid), or null. */
export function dbRefusal(changes: Change[]) {
  return planRefusal(changes.filter((c) => c.db).map((c) => ({code: String(c.local?.body.code ?? c.key), plan: c.db!})))
}

/** Records every resource that now matches the backend (applied or unchanged) as the folder's synced state. */
export async function recordSynced(plan: FolderPlan, applied: Change[]): Promise<void> {
  const pending = new Set(plan.changes.filter((c) => !applied.includes(c)).map((c) => c.key))
  const appliedByKey = new Map(applied.map((c) => [c.key, c]))
  for (const r of plan.local) {
    if (pending.has(r.key)) continue
    // What the backend stored (its answer to the write), beside the folder's own text of each file.
    const change = appliedByKey.get(r.key)
    const stored = change ? storedFiles(change) : r.files
    for (const [path, text] of Object.entries(stored)) plan.state.set(path, text, plan.files[path] ?? r.files[path])
  }
  for (const c of applied) if (c.action === 'delete') for (const path of Object.keys(plan.remote.find((r) => r.key === c.key)?.files ?? {})) plan.state.forget(path)
  await plan.state.save()
}

/** Applies the changes in order; stops at the first refusal, saying what was already applied. */
export async function applyPlan(client: Client, dir: string, changes: Change[], done: (c: Change) => void): Promise<void> {
  const secrets = await readSecrets(dir)
  for (const change of changes) {
    try {
      await applyChange(client, change, secrets)
    } catch (error) {
      if (error instanceof SvcError && error.status === 412) throw changedMeanwhile(change, 'after the diff was made')
      if (error instanceof SvcError) error.message = `${change.key}: ${error.message}`
      throw error
    }
    done(change)
  }
}
