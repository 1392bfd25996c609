/** `svc push` and `svc dev` share this: read the folder, plan against the backend, apply. */
import type {Client} from '../client/backend.js'
import {SvcError} from '../core/errors.js'
import {planPush, type Change, type Plan, type RemoteResource} from '../core/workspace/plan.js'
import {parseWorkspace, type Resource} from '../core/workspace/resources.js'
import {applyChange, changedMeanwhile, remoteResources, tagChanges} from './backend.js'
import {readFolder, readSecrets} from './folder.js'
import {SyncState} from './sync-state.js'

export interface FolderPlan extends Plan {
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
  const {resources, problems} = parseWorkspace(await readFolder(dir))
  if (problems.length) throw new SvcError('usage', 0, `the workspace has ${problems.length} problem(s):\n  ${problems.join('\n  ')}`, undefined, 'fix the files, then push again')
  const remote = await remoteResources(client)
  const plan = planPush(resources, remote, options)
  if (!options.force) await tagChanges(client, plan.changes, remote)
  const state = await SyncState.load(dir, client.backend.description)
  return {...plan, local: resources, remote, conflicts: conflictsOf(plan.changes, remote, state), state}
}

/** Records every resource that now matches the backend (applied or unchanged) as the folder's synced state. */
export async function recordSynced(plan: FolderPlan, applied: Change[]): Promise<void> {
  const pending = new Set(plan.changes.filter((c) => !applied.includes(c)).map((c) => c.key))
  for (const r of plan.local) if (!pending.has(r.key)) for (const [path, text] of Object.entries(r.files)) plan.state.set(path, text)
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
