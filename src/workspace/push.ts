/** `svc push` and `svc dev` share this: read the folder, plan against the backend, apply. */
import type {Client} from '../client/backend.js'
import {SvcError} from '../core/errors.js'
import {planPush, type Change, type Plan} from '../core/workspace/plan.js'
import {parseWorkspace} from '../core/workspace/resources.js'
import {remoteResources, applyChange} from './backend.js'
import {readFolder, readSecrets} from './folder.js'

export async function planFolder(client: Client, dir: string, options: {prune: boolean}): Promise<Plan> {
  const {resources, problems} = parseWorkspace(await readFolder(dir))
  if (problems.length) throw new SvcError('usage', 0, `the workspace has ${problems.length} problem(s):\n  ${problems.join('\n  ')}`, undefined, 'fix the files, then push again')
  return planPush(resources, await remoteResources(client), options)
}

/** Applies the changes in order; stops at the first refusal, saying what was already applied. */
export async function applyPlan(client: Client, dir: string, changes: Change[], done: (c: Change) => void): Promise<void> {
  const secrets = await readSecrets(dir)
  for (const change of changes) {
    try {
      await applyChange(client, change, secrets)
    } catch (error) {
      if (error instanceof SvcError) error.message = `${change.key}: ${error.message}`
      throw error
    }
    done(change)
  }
}
