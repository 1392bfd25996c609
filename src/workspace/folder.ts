/** Reading and writing a workspace folder: the files of its known subfolders, written atomically. */
import {existsSync} from 'node:fs'
import {mkdir, readdir, readFile, rename, rm, writeFile} from 'node:fs/promises'
import {dirname, join, relative, sep} from 'node:path'
import {SvcError} from '../core/errors.js'
import type {Resource} from '../core/workspace/resources.js'

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

/**
 * Writes resources into the folder; with `prune`, removes the files of resources that are no
 * longer there. Returns the paths written (only those whose text changed) and removed.
 */
export async function writeResources(dir: string, resources: Resource[], options: {prune: boolean}): Promise<{written: string[]; removed: string[]}> {
  const before = existsSync(dir) ? await readFolder(dir) : {}
  const wanted = new Map<string, string>()
  for (const r of resources) for (const [path, text] of Object.entries(r.files)) wanted.set(path, text)
  const written: string[] = []
  for (const [path, text] of [...wanted].sort(([a], [b]) => a.localeCompare(b))) {
    if (before[path] === text) continue
    await writeAtomic(join(dir, path), text)
    written.push(path)
  }
  const removed: string[] = []
  if (options.prune) {
    for (const path of Object.keys(before).sort()) {
      if (wanted.has(path)) continue
      await rm(join(dir, path), {force: true})
      removed.push(path)
    }
  }
  return {written, removed}
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
