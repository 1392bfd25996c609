/**
 * Rules of the App resource (platform-api.md "App") that only code can say, no I/O: the url_code
 * normalisation, a write merged over the stored app or the defaults, the response view. Types,
 * lengths and choices are the schemas' (src/core/contract/apps.ts).
 */
import type {AppCreate, AppPatch, AppView} from '../contract/apps.js'
import type {AppData, AppRecord, AppSummary} from './types.js'


import {DEFAULT_APP_ENGINE, DEFAULT_CSS_ENGINE} from '../../engines/index.js'

/** The engines are the registry's (src/engines/). */
export {APP_ENGINES, CSS_ENGINES, type AppEngine, type CssEngine} from '../../engines/index.js'
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
/** A url_code as sent may be longer than as kept (normalisation drops characters). */
export const MAX_URL_CODE_INPUT = 1000
export const ACTION_NAME_RE = /^[A-Za-z0-9_-]{1,64}$/
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

/** What a create or PATCH writes, and whether the caller must derive a unique url_code from the name. */
export interface NormalizedApp {
  input: AppData
  /** url_code was not given on create (or sent blank): the caller derives a unique one from the name. */
  urlCodeFromName: boolean
}

/** The members of a write that replace the stored value when sent (url_code and the widget are derived below). */
const WRITABLE = [
  'name', 'description', 'app_engine', 'css_engine', 'source_code', 'public', 'active', 'db_code', 'show_in_module', 'prompt', 'fields', 'actions',
] as const satisfies readonly (keyof AppData)[]

const DEFAULTS: Omit<AppData, 'name' | 'url_code' | 'source_code'> = {
  description: '',
  app_engine: DEFAULT_APP_ENGINE,
  css_engine: DEFAULT_CSS_ENGINE,
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

/**
 * The app a create (no `current`) or a PATCH (`current`) writes, from a body its route's schema has
 * checked (types, lengths, choices, url_code, actions: src/core/contract/apps.ts): what is absent
 * keeps the stored value (or the default), `dashboard_widget` goes into `fields`.
 */
export function appData(body: AppCreate | AppPatch, current?: AppRecord): NormalizedApp {
  const base: AppData = current
    ? {
        name: current.name, url_code: current.url_code, description: current.description, app_engine: current.app_engine,
        css_engine: current.css_engine, source_code: current.source_code, public: current.public, active: current.active,
        db_code: current.db_code, show_in_module: current.show_in_module, prompt: current.prompt,
        actions: current.actions, fields: current.fields, config: current.config,
      }
    : {...DEFAULTS, name: '', url_code: '', source_code: '', fields: {}, actions: []}
  const out: AppData = {...base, fields: {...base.fields}}
  /** The members a write sets over the stored app (or the defaults) when the body has them. */
  const keep = <K extends keyof AppData>(key: K, value: AppData[K] | undefined) => {
    if (value !== undefined) out[key] = value
  }
  for (const key of WRITABLE) keep(key, body[key] as AppData[typeof key] | undefined)
  if (body.dashboard_widget !== undefined) out.fields.dashboard_widget = body.dashboard_widget

  let urlCodeFromName = false
  const urlCode = body.url_code
  if (urlCode === undefined || urlCode === null || urlCode.trim() === '') urlCodeFromName = !current || urlCode !== undefined
  else out.url_code = normalizeUrlCode(urlCode)
  return {input: out, urlCodeFromName}
}

/** The spec's response fields of an app; never account_id, app_code, css_code, token. */
export function appView(app: AppSummary): AppView {
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
