/** Reading and writing a workspace folder: the files of its known subfolders, written atomically. */
import {existsSync} from 'node:fs'
import {mkdir, readdir, readFile, rename, rm, writeFile} from 'node:fs/promises'
import {dirname, join, relative, sep} from 'node:path'
import {SvcError} from '../core/errors.js'
import type {Resource} from '../core/workspace/resources.js'
import type {SyncState} from './sync-state.js'

export const FOLDERS = ['prompts', 'dbs', 'apps', 'dashboards', 'flows', 'connectors'] as const
export const SECRETS_FILE = '.svc-secrets.json'

async function walk(root: string, dir: string, depth: number, out: Record<string, string>): Promise<void> {
  for (const entry of await readdir(dir, {withFileTypes: true})) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue
    const full = join(dir, entry.name)
    if (entry.isDirectory() && depth > 0) await walk(root, full, depth - 1, out)
    else if (entry.isFile()) out[relative(root, full).split(sep).join('/')] = await readFile(full, 'utf8')
  }
}

/** Every file of the workspace's folders, path (relative, `/`) → text. */
export async function readFolder(dir: string): Promise<Record<string, string>> {
  if (!existsSync(dir)) throw new SvcError('usage', 0, `no workspace folder ${dir}`, undefined, 'create one with: svc init DIR')
  const files: Record<string, string> = {}
  for (const folder of FOLDERS) {
    const path = join(dir, folder)
    if (existsSync(path)) await walk(dir, path, folder === 'apps' ? 1 : 0, files)
  }
  return files
}

async function writeAtomic(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), {recursive: true})
  await writeFile(`${path}.tmp`, text)
  await rename(`${path}.tmp`, path)
}

export interface PullPlan {
  /** Files to write (their text changed), path → text. */
  write: Map<string, string>
  /** Files to remove (--prune). */
  remove: string[]
  /** Files among those that were edited in the folder since it last synced with this backend. */
  localChanges: string[]
  /** Every file of the backend's resources (the synced state after the pull). */
  wanted: Map<string, string>
}

/**
 * What a pull would write and remove; with `prune`, the files of resources that are no longer on
 * the backend go. A file that differs from what the folder last synced (`state`) is a local change.
 */
export async function planPull(dir: string, resources: Resource[], options: {prune: boolean}, state: SyncState): Promise<PullPlan> {
  const before = existsSync(dir) ? await readFolder(dir) : {}
  const wanted = new Map<string, string>()
  for (const r of resources) for (const [path, text] of Object.entries(r.files)) wanted.set(path, text)
  const write = new Map<string, string>()
  for (const [path, text] of [...wanted].sort(([a], [b]) => a.localeCompare(b))) if (before[path] !== text) write.set(path, text)
  const remove = options.prune ? Object.keys(before).filter((p) => !wanted.has(p)).sort() : []
  const touched = [...write.keys(), ...remove].filter((p) => before[p] !== undefined)
  const localChanges = touched.filter((p) => !state.unchangedSince(p, before[p]))
  return {write, remove, localChanges, wanted}
}

/** Writes (atomically) and removes what the plan says, then records the synced state. */
export async function applyPull(dir: string, plan: PullPlan, state: SyncState): Promise<{written: string[]; removed: string[]}> {
  for (const [path, text] of plan.write) await writeAtomic(join(dir, path), text)
  for (const path of plan.remove) {
    await rm(join(dir, path), {force: true})
    state.forget(path)
  }
  for (const [path, text] of plan.wanted) state.set(path, text)
  await mkdir(dir, {recursive: true})
  await state.save()
  return {written: [...plan.write.keys()], removed: plan.remove}
}

/** Connector secrets: `SVC_SECRET_<CODE>` in the environment, else the git-ignored `.svc-secrets.json` ({code: secret}). */
export async function readSecrets(dir: string): Promise<Record<string, string>> {
  const path = join(dir, SECRETS_FILE)
  if (!existsSync(path)) return {}
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as unknown
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('must hold an object {code: secret}')
    return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string')) as Record<string, string>
  } catch (error) {
    throw new SvcError('usage', 0, `${SECRETS_FILE}: ${(error as Error).message}`)
  }
}
