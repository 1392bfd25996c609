/** A local app folder (`svc app pull`, `push`, `dev`, `create --dir`): `svc-app.json` + one source file. */
import {existsSync} from 'node:fs'
import {mkdir, readFile, writeFile} from 'node:fs/promises'
import {join, resolve} from 'node:path'
import {SOURCE_FILE} from '../core/apps/entry.js'
import {APP_ENGINES, UUID_RE, type AppEngine} from '../core/apps/validate.js'
import type {AppView} from '../core/apps/validate.js'
import {SvcError} from '../core/errors.js'
import type {Client} from '../client/backend.js'
import {PACKAGE_TEMPLATES} from '../paths.js'

export const PROJECT_FILE = 'svc-app.json'

/** What `svc-app.json` holds: which app the folder is, and how to build it. */
export interface AppProject {
  id?: string
  name: string
  url_code?: string
  app_engine: AppEngine
  css_engine: string
}

export interface LoadedProject {
  dir: string
  project: AppProject
  sourceFile: string
  source: string
}

const usage = (message: string, hint?: string) => new SvcError('usage', 0, message, undefined, hint)

export async function readProject(dir: string): Promise<LoadedProject> {
  const root = resolve(dir)
  // A workspace app folder (svc init / pull) names its settings app.json.
  const file = existsSync(join(root, PROJECT_FILE)) || !existsSync(join(root, 'app.json')) ? join(root, PROJECT_FILE) : join(root, 'app.json')
  if (!existsSync(file)) throw usage(`no ${PROJECT_FILE} in ${dir}`, 'create one with: svc app create --template svelte --dir DIR, or svc app pull ID DIR')
  let project: AppProject
  try {
    project = JSON.parse(await readFile(file, 'utf8')) as AppProject
  } catch (error) {
    throw usage(`${file} is not valid JSON: ${(error as Error).message}`)
  }
  if (!(APP_ENGINES as readonly string[]).includes(project.app_engine)) throw usage(`${file}: app_engine must be one of ${APP_ENGINES.join(', ')}`)
  const sourceFile = join(root, SOURCE_FILE[project.app_engine])
  if (!existsSync(sourceFile)) throw usage(`missing ${SOURCE_FILE[project.app_engine]} in ${dir}`)
  return {dir: root, project, sourceFile, source: await readFile(sourceFile, 'utf8')}
}

export async function writeProject(dir: string, project: AppProject, source: string): Promise<string> {
  const root = resolve(dir)
  await mkdir(root, {recursive: true})
  const {id, name, url_code, app_engine, css_engine} = project
  await writeFile(join(root, PROJECT_FILE), JSON.stringify({id, name, url_code, app_engine, css_engine}, null, 2) + '\n')
  const sourceFile = join(root, SOURCE_FILE[project.app_engine])
  await writeFile(sourceFile, source)
  return sourceFile
}

export const projectOf = (app: AppView): AppProject => ({
  id: app.id, name: app.name, url_code: app.url_code, app_engine: app.app_engine as AppEngine, css_engine: app.css_engine,
})

/** The starter source of an engine (templates/<engine>/<file>). */
export async function templateSource(engine: string): Promise<string> {
  if (!(APP_ENGINES as readonly string[]).includes(engine)) throw usage(`no template "${engine}"; engines: ${APP_ENGINES.join(', ')}`)
  return readFile(join(PACKAGE_TEMPLATES, engine, SOURCE_FILE[engine as AppEngine]), 'utf8')
}

/** An app id from an id or a url_code of the current account. */
export async function resolveAppId(client: Client, ref: string): Promise<string> {
  if (UUID_RE.test(ref)) return ref
  const apps = await client.call('listApps', {query: {q: ref}})
  const found = apps.find((a) => a.url_code === ref)
  if (!found) throw new SvcError('not_found', 404, `no app "${ref}"`, undefined, 'list apps with: svc app list')
  return found.id
}
