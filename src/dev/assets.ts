/**
 * App assets on the CLI side (docs/apps.md "Assets"): the files beside an app's source that the
 * app loads by a relative URL. `svc app push` sends the new and changed ones; `svc app dev` serves
 * them from the folder at the same paths the app's origin does.
 */
import {createHash} from 'node:crypto'
import {readdir, readFile, stat} from 'node:fs/promises'
import type {ServerResponse} from 'node:http'
import {join, relative, sep} from 'node:path'
import type {Client} from '../client/backend.js'
import {assetType} from '../core/apps/assets.js'
import {SOURCE_FILE_NAMES} from '../engines/index.js'

/** Files of an app folder that are never assets: the project files and anything hidden. */
const NOT_ASSETS = new Set(['app.json', 'svc-app.json', 'node_modules'])

export interface LocalAssets {
  /** Relative path (with `/`) → absolute file. */
  assets: Map<string, string>
  /** Files that are not assets (a type the server does not keep, a path it cannot serve), for a note. */
  skipped: string[]
}

/** Whether a folder-relative path (`assets/sky.png`) is an asset: not a project or source file, nothing hidden, a type the server keeps. */
function isAsset(path: string): boolean {
  const parts = path.split('/')
  if (parts.some((part) => part.startsWith('.')) || NOT_ASSETS.has(parts[0]!)) return false
  return !('error' in assetType(path))
}

/** The assets of an app folder: every file but the project files, the source and hidden ones. */
export async function localAssets(dir: string, sourceFile: string): Promise<LocalAssets> {
  const assets = new Map<string, string>()
  const skipped: string[] = []
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, {withFileTypes: true})) {
      if (entry.name.startsWith('.') || NOT_ASSETS.has(entry.name)) continue
      const file = join(folder, entry.name)
      if (entry.isDirectory()) {
        await walk(file)
        continue
      }
      if (!entry.isFile() || file === sourceFile) continue
      const path = relative(dir, file).split(sep).join('/')
      if (folder === dir && /\.(md|markdown)$/i.test(entry.name)) continue
      if (isAsset(path)) assets.set(path, file)
      else if (!(folder === dir && SOURCE_FILE_NAMES.has(entry.name))) skipped.push(path)
    }
  }
  await walk(dir)
  return {assets, skipped}
}

/** Sends the folder's new and changed assets (by SHA-256) to the app; returns what it did. */
export async function pushAssets(client: Client, appId: string, dir: string, sourceFile: string): Promise<{sent: string[]; unchanged: number; skipped: string[]}> {
  const {assets, skipped} = await localAssets(dir, sourceFile)
  if (assets.size === 0) return {sent: [], unchanged: 0, skipped}
  const remote = new Map((await client.call('listAppAssets', {params: {id: appId}})).map((a) => [a.path, a.sha256]))
  const sent: string[] = []
  let unchanged = 0
  for (const [path, file] of [...assets].sort(([a], [b]) => a.localeCompare(b))) {
    const data = await readFile(file)
    if (remote.get(path) === createHash('sha256').update(data).digest('hex')) {
      unchanged++
      continue
    }
    await client.call('putAppAsset', {params: {id: appId}, body: {asset: {path, data_base64: data.toString('base64')}}})
    sent.push(path)
  }
  return {sent, unchanged, skipped}
}

/** `svc app dev`: answers a request for an asset of the folder (true), else leaves it (false). */
export async function serveFolderAsset(dir: string, urlPath: string, res: ServerResponse): Promise<boolean> {
  let path: string
  try {
    path = decodeURIComponent(urlPath.slice(1))
  } catch {
    return false
  }
  const kind = assetType(path)
  if ('error' in kind || !isAsset(path)) return false
  const file = join(dir, ...path.split('/'))
  const info = await stat(file).catch(() => null)
  if (!info?.isFile()) return false
  res.writeHead(200, {'content-type': kind.type, 'content-length': info.size, 'cache-control': 'no-cache'})
  res.end(await readFile(file))
  return true
}
