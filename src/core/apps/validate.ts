/** Rules of the App resource (platform-api.md "App"): validation and normalisation, no I/O. */
import {FieldErrorBag} from '../errors.js'
import type {AppAction, AppInput, AppRecord} from '../../store/apps/types.js'

export const APP_ENGINES = ['svelte', 'vue', 'react', 'js', 'html', 'kaboom', 'phaser'] as const
export type AppEngine = (typeof APP_ENGINES)[number]
export const CSS_ENGINES = ['tailwind_all', 'tailwind', 'none'] as const
export type CssEngine = (typeof CSS_ENGINES)[number]
/** Engines whose page gets the CSS framework (platform-api.md engine table). */
export const CSS_FRAMEWORK_ENGINES: readonly AppEngine[] = ['svelte', 'vue', 'react']
export const SHOW_IN_MODULES = [
  'organize', 'mail', 'crm', 'kb', 'cms', 'connect', 'voip', 'form', 'insight', 'billing', 'drive', 'fiskator', 'commerce',
  'account', 'tasks/show', 'contacts/index',
] as const

export const MAX_SOURCE = 200_000
export const MAX_NAME = 255
export const MAX_URL_CODE = 100
export const MAX_DESCRIPTION = 10_000
export const MAX_PROMPT = 100_000
export const MAX_ACTIONS = 100
const ACTION_NAME_RE = /^[A-Za-z0-9_-]{1,64}$/
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * A url_code as the server keeps it: accents folded, lower case, spaces become `-`, every character
 * outside `a-z 0-9 - _` stripped, runs of `-` collapsed, `-` trimmed from the ends, at most 100 characters.
 */
export function normalizeUrlCode(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ł/g, 'l')
    .replace(/Ł/g, 'L')
    .toLowerCase()
    .trim()
    .replace(/\s+/g, '-')
    .replace(/[^a-z0-9_-]/g, '')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_URL_CODE)
    .replace(/-+$/, '')
}

/** A body of `{app: {...}}` checked and merged over `current` (PATCH) or over the defaults (POST). */
export interface NormalizedApp {
  input: AppInput
  /** url_code was not given on create: the caller derives a unique one from the name. */
  urlCodeFromName: boolean
}

const DEFAULTS: Omit<AppInput, 'name' | 'url_code' | 'source_code'> = {
  description: '',
  app_engine: 'svelte',
  css_engine: 'tailwind_all',
  public: false,
  active: true,
  db_code: null,
  show_in_module: null,
  prompt: null,
  actions: [],
  fields: {},
  config: {},
}

/** Length in characters (code points): an emoji counts once, not as two UTF-16 units. */
export function characters(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

const has = (o: Record<string, unknown>, k: string) => Object.prototype.hasOwnProperty.call(o, k)

function optionalString(body: Record<string, unknown>, key: string, errors: FieldErrorBag, max: number): string | null | undefined {
  if (!has(body, key)) return undefined
  const v = body[key]
  if (v === null) return null
  if (typeof v !== 'string') {
    errors.add(key, 'must be a string')
    return undefined
  }
  if (v.length > max) errors.add(key, `is too long (maximum is ${max} characters)`)
  return v
}

function optionalBoolean(body: Record<string, unknown>, key: string, errors: FieldErrorBag): boolean | undefined {
  if (!has(body, key)) return undefined
  const v = body[key]
  if (typeof v === 'boolean') return v
  if (v === 'true' || v === '1' || v === 1) return true
  if (v === 'false' || v === '0' || v === 0) return false
  errors.add(key, 'must be true or false')
  return undefined
}

export function normalizeActions(value: unknown, errors: FieldErrorBag): AppAction[] | undefined {
  if (value === null) return []
  if (!Array.isArray(value)) {
    errors.add('actions', 'must be an array of actions')
    return undefined
  }
  if (value.length > MAX_ACTIONS) errors.add('actions', `has too many actions (maximum is ${MAX_ACTIONS})`)
  const out: AppAction[] = []
  const seen = new Set<string>()
  value.forEach((item, i) => {
    const where = `actions[${i}]`
    if (!item || typeof item !== 'object' || Array.isArray(item)) return void errors.add('actions', `${where} must be an object`)
    const a = item as Record<string, unknown>
    if (typeof a.action !== 'string' || !ACTION_NAME_RE.test(a.action)) {
      return void errors.add('actions', `${where}.action must be 1-64 characters of letters, digits, _ and -`)
    }
    if (seen.has(a.action)) return void errors.add('actions', `${where}.action "${a.action}" is declared twice`)
    seen.add(a.action)
    if (typeof a.flow_code !== 'string' || !a.flow_code.trim()) return void errors.add('actions', `${where}.flow_code can't be blank`)
    if (a.description !== undefined && a.description !== null && typeof a.description !== 'string') {
      return void errors.add('actions', `${where}.description must be a string`)
    }
    if (a.public !== undefined && typeof a.public !== 'boolean') return void errors.add('actions', `${where}.public must be true or false`)
    out.push({action: a.action, flow_code: a.flow_code.trim(), description: (a.description as string | undefined) ?? '', public: a.public === true})
  })
  return out
}

/**
 * Validates `body` (the inside of `{app: ...}`) for a create (`current` undefined) or an update.
 * Required on create: name, source_code (app_engine and css_engine take their defaults).
 */
export function normalizeApp(body: Record<string, unknown>, current?: AppRecord): NormalizedApp {
  const errors = new FieldErrorBag()
  const base: AppInput = current
    ? {
        name: current.name, url_code: current.url_code, description: current.description, app_engine: current.app_engine,
        css_engine: current.css_engine, source_code: current.source_code, public: current.public, active: current.active,
        db_code: current.db_code, show_in_module: current.show_in_module, prompt: current.prompt,
        actions: current.actions, fields: current.fields, config: current.config,
      }
    : {...DEFAULTS, name: '', url_code: '', source_code: '', fields: {}, actions: []}
  const out: AppInput = {...base, fields: {...base.fields}}

  const name = optionalString(body, 'name', errors, MAX_NAME)
  if (name !== undefined) out.name = (name ?? '').trim()
  if ((!current || name !== undefined) && !out.name) errors.add('name', "can't be blank")

  const engine = has(body, 'app_engine') ? body.app_engine : undefined
  if (engine !== undefined) {
    if (typeof engine !== 'string' || !(APP_ENGINES as readonly string[]).includes(engine)) {
      errors.add('app_engine', `is not included in the list (${APP_ENGINES.join(', ')})`)
    } else out.app_engine = engine
  }
  const css = has(body, 'css_engine') ? body.css_engine : undefined
  if (css !== undefined) {
    if (typeof css !== 'string' || !(CSS_ENGINES as readonly string[]).includes(css)) {
      errors.add('css_engine', `is not included in the list (${CSS_ENGINES.join(', ')})`)
    } else out.css_engine = css
  }

  if (has(body, 'source_code')) {
    const v = body.source_code
    if (typeof v !== 'string') errors.add('source_code', 'must be a string')
    else if (v.length > MAX_SOURCE && characters(v) > MAX_SOURCE) errors.add('source_code', `is too long (maximum is ${MAX_SOURCE} characters)`)
    else out.source_code = v
  }
  if (!out.source_code.trim() && !errors.fields.source_code) errors.add('source_code', "can't be blank")

  let urlCodeFromName = false
  const urlCode = optionalString(body, 'url_code', errors, 1000)
  if (urlCode === undefined || urlCode === null || urlCode.trim() === '') {
    if (!current || urlCode !== undefined) urlCodeFromName = true
  } else {
    const normalized = normalizeUrlCode(urlCode)
    if (!normalized) errors.add('url_code', 'must contain letters or digits')
    else if (UUID_RE.test(normalized)) errors.add('url_code', 'cannot have the form of an app id')
    else out.url_code = normalized
  }

  const description = optionalString(body, 'description', errors, MAX_DESCRIPTION)
  if (description !== undefined) out.description = description ?? ''
  const isPublic = optionalBoolean(body, 'public', errors)
  if (isPublic !== undefined) out.public = isPublic
  const active = optionalBoolean(body, 'active', errors)
  if (active !== undefined) out.active = active

  const dbCode = optionalString(body, 'db_code', errors, 255)
  if (dbCode !== undefined) out.db_code = dbCode?.trim() ? dbCode.trim() : null
  const show = optionalString(body, 'show_in_module', errors, 100)
  if (show !== undefined) {
    const v = show?.trim() ? show.trim() : null
    if (v !== null && !(SHOW_IN_MODULES as readonly string[]).includes(v)) {
      errors.add('show_in_module', `is not included in the list (${SHOW_IN_MODULES.join(', ')})`)
    } else out.show_in_module = v
  }
  const prompt = optionalString(body, 'prompt', errors, MAX_PROMPT)
  if (prompt !== undefined) out.prompt = prompt

  if (has(body, 'fields')) {
    const f = body.fields
    if (f === null) out.fields = {}
    else if (typeof f !== 'object' || Array.isArray(f)) errors.add('fields', 'must be an object')
    else out.fields = {...(f as Record<string, unknown>)}
  }
  const widget = optionalBoolean(body, 'dashboard_widget', errors)
  if (widget !== undefined) out.fields.dashboard_widget = widget
  if (has(body, 'actions')) {
    const actions = normalizeActions(body.actions, errors)
    if (actions) out.actions = actions
  }
  errors.throwIfAny()
  return {input: out, urlCodeFromName}
}

/** The spec's response fields of an app; never account_id, app_code, css_code, token. */
export function appView(app: AppRecord) {
  return {
    id: app.id,
    name: app.name,
    url_code: app.url_code,
    description: app.description,
    app_engine: app.app_engine,
    css_engine: app.css_engine,
    source_code: app.source_code,
    public: app.public,
    active: app.active,
    app_build_time: app.app_build_time,
    css_build_time: app.css_build_time,
    fields: app.fields,
    config: {...app.config, url: `/a/${app.url_code}`, build_hash: app.build_hash},
    actions: app.actions,
    db_code: app.db_code,
    show_in_module: app.show_in_module,
    created_by_id: app.created_by_id,
    updated_by_id: app.updated_by_id,
    created_at: app.created_at,
    updated_at: app.updated_at,
  }
}
export type AppView = ReturnType<typeof appView>
