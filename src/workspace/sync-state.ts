/**
 * What a folder last agreed on with a backend: the SHA-256 of each file as `svc pull` wrote it or
 * `svc push` applied it, per backend (`.svc-sync.json`, git-ignored). It tells
 * - `svc push` that the backend changed a resource since then (refused without `--force`), and
 * - `svc pull` that a local file was edited since then (not overwritten without `--force`).
 */
import {createHash} from 'node:crypto'
import {existsSync} from 'node:fs'
import {readFile, rename, writeFile} from 'node:fs/promises'
import {join} from 'node:path'

export const SYNC_FILE = '.svc-sync.json'

interface SyncFile {
  version: 1
  /**
   * Backend description (`remote: http://host as alice`) → path → sha256 of the file as the backend
   * has it (its canonical form), or [that, the folder's own text] when the folder's file is written
   * differently (a hand-written app.json): either counts as "unchanged since".
   */
  backends: Record<string, Record<string, string | string[]>>
}

export const hashText = (text: string) => createHash('sha256').update(text).digest('hex')

export class SyncState {
  private constructor(private readonly path: string, private readonly file: SyncFile, readonly backend: string) {}

  static async load(dir: string, backend: string): Promise<SyncState> {
    const path = join(dir, SYNC_FILE)
    let file: SyncFile = {version: 1, backends: {}}
    if (existsSync(path)) {
      try {
        const value = JSON.parse(await readFile(path, 'utf8')) as SyncFile
        if (value && typeof value === 'object' && value.backends && typeof value.backends === 'object') file = {version: 1, backends: value.backends}
      } catch {
        // A damaged state only loses the checks; the next pull or push writes it again.
      }
    }
    return new SyncState(path, file, backend)
  }

  private get files(): Record<string, string | string[]> {
    return (this.file.backends[this.backend] ??= {})
  }

  /** The hashes recorded for a path, undefined when the folder never synced it with this backend. */
  recorded(path: string): string[] | undefined {
    if (!Object.prototype.hasOwnProperty.call(this.files, path)) return undefined
    const was = this.files[path]
    return Array.isArray(was) ? was : [String(was)]
  }

  /** True when `text` is what the folder last synced for `path` (or nothing was ever recorded and `text` is absent). */
  unchangedSince(path: string, text: string | undefined): boolean {
    const was = this.recorded(path)
    return text === undefined ? was === undefined : was !== undefined && was.includes(hashText(text))
  }

  /**
   * Records `text` (the file as the backend stored it: what a push applied or a pull wrote) as the
   * synced version of `path`; `folderText`, when the folder's own file reads differently (the same
   * content written by hand), counts as unchanged too.
   */
  set(path: string, text: string, folderText?: string): void {
    const hashes = [...new Set([hashText(text), ...(folderText === undefined ? [] : [hashText(folderText)])])]
    this.files[path] = hashes.length === 1 ? hashes[0]! : hashes
  }

  forget(path: string): void {
    delete this.files[path]
  }

  async save(): Promise<void> {
    await writeFile(`${this.path}.tmp`, JSON.stringify(this.file, null, 2) + '\n')
    await rename(`${this.path}.tmp`, this.path)
  }
}

/**
 * The synced state of an app folder: the workspace's when the folder is `<workspace>/apps/<code>`
 * of a synced workspace, else the folder's own `.svc-sync.json`. Paths are `apps/<code>/<file>`
 * either way, as in a workspace.
 */
export async function appSyncState(appDir: string, backend: string): Promise<{state: SyncState; root: string}> {
  const {basename, dirname, resolve} = await import('node:path')
  const dir = resolve(appDir)
  const workspace = dirname(dirname(dir))
  const root = basename(dirname(dir)) === 'apps' && existsSync(join(workspace, SYNC_FILE)) ? workspace : dir
  return {state: await SyncState.load(root, backend), root}
}
