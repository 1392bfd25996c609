/**
 * A workspace as plain files: each resource has one canonical file form, built from its API view
 * (pull) or from the files a person wrote (push). Comparing canonical forms is what makes
 * "push, pull, push again" report nothing to change. Pure: no I/O.
 *
 *   prompts/<code>.md                  account prompt (front matter: name, kind, scope, placeholder)
 *   prompts/<code>.user.md             the acting user's own prompt
 *   prompts/<code>.team-<id>.md        team / department prompt
 *   dbs/<code>.json                    name, code, schema, public_methods, fields
 *   apps/<url_code>/app.json + source  App.svelte, App.vue, App.jsx, app.js, index.html or game.js
 *   dashboards/<name>.json             name, context, shared, is_default, layout
 *   flows/<code>.json                  a flow program (resource svc/custom_flow)
 *   connectors/<code>.json             url and methods (svc/custom_connector); never the secret
 */
import {parse as parseYaml, stringify as stringifyYaml} from 'yaml'
import {DEFAULT_CSS_ENGINE, sourceFileOf} from '../../engines/index.js'
import {APP_ENGINES, type AppEngine} from '../apps/validate.js'
import {splitFrontMatter} from '../prompts/front-matter.js'

export const KINDS = ['connector', 'db', 'flow', 'app', 'prompt', 'dashboard'] as const
export type Kind = (typeof KINDS)[number]

/** One resource in file form: `key` identifies it on both sides, `files` are path → text. */
export interface Resource {
  kind: Kind
  key: string
  files: Record<string, string>
  /** What the API takes to create or update it. */
  body: Record<string, unknown>
}

const json = (value: unknown) => JSON.stringify(value, null, 2) + '\n'
const pick = (obj: Record<string, unknown>, keys: readonly string[]) =>
  Object.fromEntries(keys.filter((k) => obj[k] !== undefined).map((k) => [k, obj[k]]))
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const CODE_RE = /^[A-Za-z0-9_-]{1,100}$/

export class WorkspaceProblem extends Error {}
const problem = (path: string, message: string) => new WorkspaceProblem(`${path}: ${message}`)

// ---------------------------------------------------------------- prompts

export interface PromptBody {
  name: string
  code: string
  kind: string
  scope: string
  scope_id: number | null
  ai_placeholder: string | null
  content: string
}

export function promptPath(p: {code: string; scope: string; scope_id: number | null}): string {
  if (p.scope === 'account') return `prompts/${p.code}.md`
  if (p.scope === 'user') return `prompts/${p.code}.user.md`
  return `prompts/${p.code}.${p.scope}-${p.scope_id}.md`
}

export function promptResource(view: PromptBody): Resource {
  const body: PromptBody = {
    name: view.name, code: view.code, kind: view.kind, scope: view.scope,
    scope_id: view.scope === 'user' ? null : view.scope_id, ai_placeholder: view.ai_placeholder || null, content: view.content,
  }
  const meta: Record<string, unknown> = {name: body.name, kind: body.kind, scope: body.scope}
  if (body.scope_id !== null) meta.scope_id = body.scope_id
  if (body.ai_placeholder) meta.placeholder = body.ai_placeholder
  const path = promptPath(body)
  return {kind: 'prompt', key: path, files: {[path]: `---\n${stringifyYaml(meta)}---\n${body.content}`}, body: {...body}}
}

export function parsePrompt(path: string, text: string): Resource {
  const {frontMatter, body} = splitFrontMatter(text)
  let meta: unknown = {}
  try {
    meta = frontMatter === null ? {} : (parseYaml(frontMatter, {maxAliasCount: 10}) ?? {})
  } catch (error) {
    throw problem(path, `front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}`)
  }
  if (!isObject(meta)) throw problem(path, 'front matter must be a mapping (name: ..., kind: ...)')
  const code = path.slice('prompts/'.length).split('.')[0]!
  if (!CODE_RE.test(code)) throw problem(path, 'the file name must be <code>.md with a code of letters, digits, _ and -')
  const scope = meta.scope === undefined ? 'account' : String(meta.scope)
  if (!['account', 'user', 'team', 'department'].includes(scope)) throw problem(path, 'scope must be account, user, team or department')
  const scopeId = meta.scope_id === undefined || meta.scope_id === null ? null : Number(meta.scope_id)
  if ((scope === 'team' || scope === 'department') && (scopeId === null || !Number.isInteger(scopeId))) throw problem(path, `scope ${scope} needs an integer scope_id`)
  const resource = promptResource({
    name: meta.name === undefined ? code : String(meta.name), code, kind: meta.kind === undefined ? 'chat' : String(meta.kind), scope,
    scope_id: scope === 'team' || scope === 'department' ? scopeId : null,
    ai_placeholder: meta.placeholder === undefined || meta.placeholder === null ? null : String(meta.placeholder), content: body,
  })
  if (resource.key !== path) throw problem(path, `a ${scope} prompt lives in ${resource.key}`)
  return resource
}

// ---------------------------------------------------------------- databases

const DB_KEYS = ['name', 'code', 'schema', 'public_methods', 'fields'] as const

export function dbResource(view: Record<string, unknown>): Resource {
  const body: Record<string, unknown> = {
    name: view.name, code: view.code, schema: view.schema ?? null, public_methods: view.public_methods ?? {},
  }
  if (isObject(view.fields) && Object.keys(view.fields).length) body.fields = view.fields
  const path = `dbs/${String(view.code)}.json`
  return {kind: 'db', key: path, files: {[path]: json(pick(body, DB_KEYS))}, body}
}

export function parseDb(path: string, text: string): Resource {
  const value = parseJsonFile(path, text)
  const code = path.slice('dbs/'.length, -'.json'.length)
  if (value.code !== undefined && value.code !== code) throw problem(path, `code "${String(value.code)}" differs from the file name (${code})`)
  if (typeof value.name !== 'string' || value.name === '') throw problem(path, 'needs a "name"')
  return dbResource({...value, code})
}

// ---------------------------------------------------------------- apps

const APP_KEYS = ['name', 'url_code', 'description', 'app_engine', 'css_engine', 'public', 'active', 'db_code', 'show_in_module', 'actions', 'fields'] as const

const isEmpty = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0)

/**
 * The value an app has when its app.json leaves a member out: the backend's default
 * (src/core/apps/validate.ts), or empty. A member at its default is left out of the file, so a
 * default written out and one left out are the same app (docs/apps.md "app.json").
 */
const APP_DEFAULTS: Record<string, unknown> = {
  description: '', css_engine: DEFAULT_CSS_ENGINE, public: false, active: true, db_code: null, show_in_module: null, actions: [], fields: {},
}
const isDefault = (key: string, v: unknown) => isEmpty(v) || (key in APP_DEFAULTS && !isEmpty(APP_DEFAULTS[key]) && v === APP_DEFAULTS[key])

export function appResource(view: Record<string, unknown>): Resource {
  const meta = Object.fromEntries(Object.entries(pick(view, APP_KEYS)).filter(([k, v]) => k === 'name' || k === 'url_code' || k === 'app_engine' || !isDefault(k, v)))
  const engine = String(view.app_engine) as AppEngine
  const dir = `apps/${String(view.url_code)}`
  return {
    kind: 'app', key: dir,
    files: {[`${dir}/app.json`]: json(meta), [`${dir}/${sourceFileOf(engine)}`]: String(view.source_code ?? '')},
    // Every member is sent, a left-out one as its default: a push makes the backend's app what the file says.
    body: {...APP_DEFAULTS, ...meta, source_code: String(view.source_code ?? '')},
  }
}

/** An app folder: its `app.json` and the source file its engine names. */
export function parseApp(dir: string, files: Record<string, string>): Resource {
  const metaText = files[`${dir}/app.json`]
  if (metaText === undefined) throw problem(dir, 'an app folder needs app.json')
  const meta = parseJsonFile(`${dir}/app.json`, metaText)
  const urlCode = dir.slice('apps/'.length)
  if (meta.url_code !== undefined && meta.url_code !== urlCode) throw problem(`${dir}/app.json`, `url_code "${String(meta.url_code)}" differs from the folder name`)
  if (!(APP_ENGINES as readonly string[]).includes(String(meta.app_engine))) throw problem(`${dir}/app.json`, `app_engine must be one of ${APP_ENGINES.join(', ')}`)
  const sourcePath = `${dir}/${sourceFileOf(String(meta.app_engine))}`
  const source = files[sourcePath]
  if (source === undefined) throw problem(dir, `missing ${sourceFileOf(String(meta.app_engine))} (the ${String(meta.app_engine)} source)`)
  return appResource({...meta, url_code: urlCode, source_code: source})
}

// ---------------------------------------------------------------- dashboards

export const slug = (name: string) => name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'dashboard'

/** Layout items without what the server would assign anyway: an empty `config`, the id `<key>` / `<key>-N`. */
function canonicalLayout(layout: unknown): unknown {
  if (!Array.isArray(layout)) return layout
  const seen = new Map<string, number>()
  return layout.map((item) => {
    if (!isObject(item)) return item
    const n = (seen.get(String(item.key)) ?? 0) + 1
    seen.set(String(item.key), n)
    const {id, config, ...rest} = item
    return {...(id === undefined || id === (n === 1 ? item.key : `${String(item.key)}-${n}`) ? {} : {id}), ...rest, ...(isEmpty(config) ? {} : {config})}
  })
}

export function dashboardResource(view: Record<string, unknown>, fileName = slug(String(view.name))): Resource {
  const body = {name: view.name, context: view.context ?? 'main', shared: Boolean(view.shared), is_default: Boolean(view.is_default), layout: canonicalLayout(view.layout ?? [])}
  const path = `dashboards/${fileName}.json`
  return {kind: 'dashboard', key: path, files: {[path]: json(body)}, body}
}

export function parseDashboard(path: string, text: string): Resource {
  const value = parseJsonFile(path, text)
  if (typeof value.name !== 'string' || value.name === '') throw problem(path, 'needs a "name"')
  if (value.layout !== undefined && !Array.isArray(value.layout)) throw problem(path, '"layout" must be an array')
  return dashboardResource(value, path.slice('dashboards/'.length, -'.json'.length))
}

// ---------------------------------------------------------------- flows and connectors

export function flowResource(view: Record<string, unknown>): Resource {
  const body = {code: view.code, name: view.name ?? view.code, fields: {program: isObject(view.fields) ? view.fields.program ?? [] : []}}
  const path = `flows/${String(view.code)}.json`
  return {kind: 'flow', key: path, files: {[path]: json(body)}, body}
}

export function connectorResource(view: Record<string, unknown>): Resource {
  const body = {code: view.code, name: view.name ?? view.code, url: view.url ?? null, fields: {methods: isObject(view.fields) ? view.fields.methods ?? [] : []}}
  const path = `connectors/${String(view.code)}.json`
  return {kind: 'connector', key: path, files: {[path]: json(body)}, body}
}

function parseCoded(path: string, text: string, folder: string, make: (v: Record<string, unknown>) => Resource): Resource {
  const value = parseJsonFile(path, text)
  const code = path.slice(folder.length + 1, -'.json'.length)
  if (value.code !== undefined && value.code !== code) throw problem(path, `code "${String(value.code)}" differs from the file name (${code})`)
  if ('secret_token' in value) throw problem(path, 'secrets never go in workspace files: set SVC_SECRET_<CODE> or .svc-secrets.json')
  return make({...value, code})
}

/** The environment variable that holds a connector's secret: `SVC_SECRET_<CODE>`. */
export const secretEnvName = (code: string) => `SVC_SECRET_${code.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`

// ---------------------------------------------------------------- the whole folder

function parseJsonFile(path: string, text: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw problem(path, `not valid JSON: ${(error as Error).message}`)
  }
  if (!isObject(value)) throw problem(path, 'must hold a JSON object')
  return value
}

/**
 * Resources of a folder from its files (paths relative, `/`-separated). Files outside the known
 * folders are ignored; every problem is reported at once.
 */
export function parseWorkspace(files: Record<string, string>): {resources: Resource[]; problems: string[]} {
  const resources: Resource[] = []
  const problems: string[] = []
  const attempt = (fn: () => Resource) => {
    try {
      resources.push(fn())
    } catch (error) {
      if (error instanceof WorkspaceProblem) problems.push(error.message)
      else throw error
    }
  }
  const appDirs = new Set<string>()
  for (const [path, text] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) {
    const parts = path.split('/')
    if (parts.length === 2 && parts[0] === 'prompts' && path.endsWith('.md')) attempt(() => parsePrompt(path, text))
    else if (parts.length === 2 && parts[0] === 'dbs' && path.endsWith('.json')) attempt(() => parseDb(path, text))
    else if (parts.length === 2 && parts[0] === 'dashboards' && path.endsWith('.json')) attempt(() => parseDashboard(path, text))
    else if (parts.length === 2 && parts[0] === 'flows' && path.endsWith('.json')) attempt(() => parseCoded(path, text, 'flows', flowResource))
    else if (parts.length === 2 && parts[0] === 'connectors' && path.endsWith('.json')) attempt(() => parseCoded(path, text, 'connectors', connectorResource))
    else if (parts.length === 3 && parts[0] === 'apps') appDirs.add(`apps/${parts[1]}`)
  }
  for (const dir of [...appDirs].sort()) attempt(() => parseApp(dir, files))
  return {resources, problems}
}
