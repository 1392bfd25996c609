/**
 * A local app folder (`svc app pull|push|dev|create --dir`, and every `apps/<url_code>/` of a
 * workspace): one format, the workspace's — `app.json` (name, url_code, engine, css, public, ...,
 * the same text `svc pull` writes) and the source file the engine names. The app is found by its
 * `url_code`, so the folder works against any backend. The old `svc-app.json` (with an `id`) is
 * still read, and replaced by `app.json` on the next write.
 */
import {existsSync} from 'node:fs'
import {mkdir, readFile, rm, writeFile} from 'node:fs/promises'
import {basename, join, resolve} from 'node:path'
import {UUID_RE} from '../core/apps/validate.js'
import {APP_ENGINES, DEFAULT_APP_ENGINE, engineSpec, isAppEngine, sourceFileNames, sourceFileOf, type AppEngine} from '../engines/index.js'
import type {AppView} from '../core/contract/apps.js'
import {isSvcError, SvcError} from '../core/errors.js'
import {appResource, type Resource} from '../core/workspace/resources.js'
import type {Client} from '../client/backend.js'
import {operationRequest, readAnswer} from '../client/typed.js'
import {PACKAGE_TEMPLATES} from '../paths.js'

export const PROJECT_FILE = 'app.json'
/** The file `svc app pull/create --dir` wrote before the two formats became one. */
export const LEGACY_PROJECT_FILE = 'svc-app.json'

/** What `app.json` holds (plus `id` in a legacy `svc-app.json`). */
export interface AppProject {
  id?: string
  name: string
  url_code?: string
  app_engine: AppEngine
  css_engine: string
  [key: string]: unknown
}

export interface LoadedProject {
  dir: string
  project: AppProject
  sourceFile: string
  source: string
  /** Read from a legacy `svc-app.json`. */
  legacy: boolean
}

const usage = (message: string, hint?: string) => new SvcError('usage', 0, message, undefined, hint)

export async function readProject(dir: string): Promise<LoadedProject> {
  const root = resolve(dir)
  const legacy = !existsSync(join(root, PROJECT_FILE)) && existsSync(join(root, LEGACY_PROJECT_FILE))
  const file = join(root, legacy ? LEGACY_PROJECT_FILE : PROJECT_FILE)
  if (!existsSync(file)) throw usage(`no ${PROJECT_FILE} in ${dir}`, `create one with: svc app create --template ${DEFAULT_APP_ENGINE} --dir DIR, or svc app pull APP DIR`)
  let project: AppProject
  try {
    project = JSON.parse(await readFile(file, 'utf8')) as AppProject
  } catch (error) {
    throw usage(`${file} is not valid JSON: ${(error as Error).message}`)
  }
  if (!project || typeof project !== 'object' || Array.isArray(project)) throw usage(`${file} must hold a JSON object`)
  if (!isAppEngine(project.app_engine)) throw usage(`${file}: app_engine must be one of ${APP_ENGINES.join(', ')}`)
  if (!legacy && typeof project.url_code !== 'string') project.url_code = basename(root)
  const names = sourceFileNames(project.app_engine)
  const found = names.filter((name) => existsSync(join(root, name)))
  if (found.length === 0) throw usage(`missing ${names.join(' or ')} in ${dir}`)
  if (found.length > 1) throw usage(`${dir} holds ${found.join(' and ')}: keep one source file`)
  const sourceFile = join(root, found[0]!)
  return {dir: root, project, sourceFile, source: await readFile(sourceFile, 'utf8'), legacy}
}

/** The folder's files in workspace form (`app.json`, the source), relative to the folder. */
export function projectFiles(app: AppView | Record<string, unknown>): Record<string, string> {
  const r = appResource(app as Record<string, unknown>)
  const prefix = `${r.key}/`
  return Object.fromEntries(Object.entries(r.files).map(([path, text]) => [path.slice(prefix.length), text]))
}

/**
 * Writes the app's folder (app.json + source); a legacy svc-app.json is removed. The source goes
 * into the source file the folder already has (`App.tsx`), else the engine's kept name. Returns it.
 */
export async function writeProject(dir: string, app: AppView | Record<string, unknown>): Promise<string> {
  const root = resolve(dir)
  await mkdir(root, {recursive: true})
  const engine = String(app.app_engine)
  const kept = sourceFileOf(engine)
  const target = sourceFileNames(engine).find((name) => existsSync(join(root, name))) ?? kept
  for (const [name, text] of Object.entries(projectFiles(app))) await writeFile(join(root, name === kept ? target : name), text)
  await rm(join(root, LEGACY_PROJECT_FILE), {force: true})
  return join(root, target)
}

/**
 * The folder as a workspace resource (`apps/<url_code>`), the body a push sends. A legacy
 * `svc-app.json` names only a few fields: the others are taken from the backend's app, so the diff
 * shows only what the folder says.
 */
export function projectResource(loaded: LoadedProject, remote: AppView | null): Resource {
  const {id: _id, ...meta} = loaded.project
  const base = loaded.legacy && remote ? {...remote} as Record<string, unknown> : {}
  return appResource({...base, ...meta, url_code: remote?.url_code ?? meta.url_code, source_code: loaded.source})
}

/** The backend's app of a folder: by `id` (legacy svc-app.json), else by `url_code`; null when there is none. */
export async function findApp(client: Client, project: AppProject): Promise<AppView | null> {
  return (await findAppVersion(client, project))?.app ?? null
}

/** `findApp` with the ETag of the version read (null from a server that answers none): a write sends it as If-Match. */
export async function findAppVersion(client: Client, project: AppProject): Promise<{app: AppView; etag: string | null} | null> {
  const read = async (id: string) => {
    const {method, path, options} = operationRequest('getApp', {params: {id}})
    const res = await client.raw(method, path, options)
    return {app: await readAnswer(res) as AppView, etag: res.headers.get('etag')}
  }
  if (project.id) {
    try {
      return await read(project.id)
    } catch (error) {
      if (!isSvcError(error) || error.code !== 'not_found') throw error
    }
  }
  if (!project.url_code) return null
  const apps = await client.call('listApps', {query: {q: project.url_code}})
  const found = apps.find((a) => a.url_code === project.url_code)
  return found ? read(found.id) : null
}

/** The starter source of an engine (templates/<engine>/<its template file>, the registry's `template`). */
export async function templateSource(engine: string): Promise<string> {
  if (!isAppEngine(engine)) throw usage(`no template "${engine}"; engines: ${APP_ENGINES.join(', ')}`)
  return readFile(templatePath(engine), 'utf8')
}

/** Where the starter of an engine is. */
export function templatePath(engine: AppEngine): string {
  return join(PACKAGE_TEMPLATES, engine, engineSpec(engine).template)
}

/** An app id from an id or a url_code of the current account. */
export async function resolveAppId(client: Client, ref: string): Promise<string> {
  if (UUID_RE.test(ref)) return ref
  const apps = await client.call('listApps', {query: {q: ref}})
  const found = apps.find((a) => a.url_code === ref)
  if (!found) throw new SvcError('not_found', 404, `no app "${ref}"`, undefined, 'list apps with: svc app list')
  return found.id
}
