/**
 * The tile catalog of platform-api.md (tile keys, settings table) with decisions.md's names and
 * default sizes, as data. Pure: no I/O.
 */

export const SIZES = ['quarter', 'half', 'three_quarters', 'full'] as const
export type TileSize = (typeof SIZES)[number]
export const isSize = (value: unknown): value is TileSize => typeof value === 'string' && (SIZES as readonly string[]).includes(value)

/** Width of each size in quarters of a row. */
export const SIZE_UNITS: Record<TileSize, number> = {quarter: 1, half: 2, three_quarters: 3, full: 4}

export const CONTEXTS = ['main', 'crm', 'cms', 'organize', 'mail', 'kb', 'marketing', 'account'] as const
export type DashboardContext = (typeof CONTEXTS)[number]
export const DEFAULT_CONTEXT: DashboardContext = 'main'

/** One setting of a tile, as `widget.json` shows it (`options`, `default`, `multiple`, `text`) plus its limits. */
export interface SettingDef {
  /** Allowed values; null for a free text. */
  options: string[] | null
  /** The default value (an array for `multiple`), or null when the spec names none. */
  default: string | string[] | null
  /** A list of values picked from `options` (hidden_counters, hidden_actions). */
  multiple: boolean
  /** A free text. */
  text: boolean
  /** Text only: maximum length in characters. */
  maxLength?: number
  /** Text only: the value is an address (`https://`, `http://` or an in-app path starting with `/`). */
  url?: boolean
}

export interface TileDef {
  key: string
  name: string
  defaultSize: TileSize
  /** Module the account must have enabled, or null. */
  module: string | null
  /** Permission the user must hold, or null. */
  permission: string | null
  settings: Record<string, SettingDef>
}

const choice = (options: string[], def: string | null = null): SettingDef => ({options, default: def, multiple: false, text: false})
const list = (options: string[]): SettingDef => ({options, default: [], multiple: true, text: false})
const text = (maxLength: number, url = false): SettingDef => ({
  options: null, default: null, multiple: false, text: true, maxLength, ...(url ? {url: true} : {}),
})

const SCOPE_ALL_MINE = ['all', 'mine']
const LIMIT_5_20 = ['5', '10', '15', '20']
const LIMIT_2_8 = ['2', '4', '6', '8']
const limit = (def: string, options = LIMIT_5_20) => choice(options, def)

/** Modules a `module_header` / `module_icons` value may name: the contexts. */
const MODULE_VALUES: string[] = [...CONTEXTS]

type Def = Omit<TileDef, 'key' | 'defaultSize'> & {defaultSize?: TileSize}

const DEFS: Record<string, Def> = {
  module_header: {
    name: 'Module header', defaultSize: 'full', module: null, permission: null,
    settings: {module: choice(MODULE_VALUES, 'cms'), frame: choice(['none', 'box'], 'none')},
  },
  module_icons: {
    name: 'Module icons', defaultSize: 'full', module: null, permission: null,
    settings: {icons: choice(MODULE_VALUES, 'main'), title: choice(['show', 'hide'], 'show')},
  },
  kpi: {
    name: 'Counters', defaultSize: 'full', module: null, permission: null,
    settings: {hidden_counters: list(['open_tasks', 'overdue_tasks', 'unread_emails', 'unread_chats', 'clients_this_month'])},
  },
  quick_actions: {
    name: 'Quick actions', module: null, permission: null,
    settings: {
      hidden_actions: list(['new_task', 'new_project', 'new_email', 'new_client', 'new_contact', 'new_deal', 'new_note', 'new_ticket', 'new_cms_page']),
      custom_name: text(60),
      custom_url: text(500, true),
    },
  },
  inbox: {
    name: 'Shared inbox', module: null, permission: null,
    settings: {
      scope: choice(['mine', 'mine_unassigned', 'unassigned', 'all'], 'mine'),
      source: choice(['all', 'tasks', 'emails'], 'all'),
      limit: limit('10'),
    },
  },
  activity: {name: 'Activity', module: null, permission: null, settings: {scope: choice(SCOPE_ALL_MINE, 'all'), limit: limit('5')}},
  tasks: {
    name: 'Tasks', module: null, permission: null,
    settings: {scope: choice(SCOPE_ALL_MINE, 'all'), filter: choice(['all', 'overdue'], 'all'), limit: limit('5')},
  },
  mail: {name: 'Mail', module: 'mail', permission: null, settings: {scope: choice(SCOPE_ALL_MINE), filter: choice(['all', 'unread']), limit: limit('5')}},
  chats: {name: 'Chats', module: null, permission: null, settings: {scope: choice(SCOPE_ALL_MINE), filter: choice(['all', 'unread']), limit: limit('5')}},
  todo: {name: 'TODO', defaultSize: 'quarter', module: null, permission: 'todo', settings: {}},
  ai_request: {name: 'AI request', module: null, permission: null, settings: {}},
  crm_stats: {
    name: 'CRM counters', defaultSize: 'full', module: 'crm', permission: null,
    settings: {hidden_counters: list(['crm_clients', 'crm_contacts', 'crm_deals_open', 'crm_notes'])},
  },
  crm_deals: {
    name: 'Recent deals', module: 'crm', permission: null,
    settings: {scope: choice(SCOPE_ALL_MINE), filter: choice(['open', 'all'], 'open'), limit: limit('5')},
  },
  crm_clients: {name: 'Latest clients', module: 'crm', permission: null, settings: {scope: choice(SCOPE_ALL_MINE), limit: limit('5')}},
  crm_contacts: {name: 'Latest contacts', module: 'crm', permission: null, settings: {scope: choice(SCOPE_ALL_MINE), limit: limit('5')}},
  crm_notes: {name: 'Newest notes', module: 'crm', permission: 'crm_notes_index', settings: {limit: limit('5')}},
  cms_pages: {name: 'Recent pages', module: 'cms', permission: null, settings: {limit: limit('5')}},
  cms_stats: {
    name: 'CMS counters', defaultSize: 'full', module: 'cms', permission: null,
    settings: {hidden_counters: list(['cms_sites', 'cms_pages', 'cms_articles', 'cms_layouts', 'cms_paragraphs', 'cms_assets'])},
  },
  cms_sites: {name: 'Recent sites', module: 'cms', permission: null, settings: {limit: limit('4', LIMIT_2_8)}},
  cms_change_log: {name: 'Change log', module: 'cms', permission: null, settings: {limit: limit('5')}},
  cms_domains: {name: 'Domains', module: 'cms', permission: null, settings: {limit: limit('10')}},
  organize_stats: {
    name: 'Organize counters', defaultSize: 'full', module: 'organize', permission: null,
    settings: {hidden_counters: list(['organize_my_tasks', 'organize_overdue_tasks', 'organize_projects', 'organize_week_hours'])},
  },
  organize_projects: {
    name: 'Recent projects', module: 'organize', permission: null,
    settings: {scope: choice(SCOPE_ALL_MINE), filter: choice(['open', 'all'], 'open'), limit: limit('5')},
  },
  organize_workinfos: {name: 'My work time', module: 'organize', permission: null, settings: {limit: limit('5')}},
  kb_stats: {
    name: 'Knowledge base counters', defaultSize: 'full', module: 'kb', permission: null,
    settings: {hidden_counters: list(['kb_knowledge_bases', 'kb_entries', 'kb_categories', 'kb_comments', 'kb_helplinks', 'kb_entry_urls'])},
  },
  kb_knowledge_bases: {name: 'Knowledge bases', module: 'kb', permission: null, settings: {limit: limit('6', LIMIT_2_8)}},
  kb_entries: {name: 'Recent entries', module: 'kb', permission: null, settings: {limit: limit('10')}},
  kb_comments: {name: 'Comments to approve', module: 'kb', permission: null, settings: {limit: limit('5')}},
  kb_entry_urls: {name: 'Entry URLs', module: 'kb', permission: null, settings: {limit: limit('5')}},
  marketing_stats: {
    name: 'Marketing counters', defaultSize: 'full', module: 'marketing', permission: null,
    settings: {
      hidden_counters: list(['marketing_campaigns', 'marketing_sent', 'marketing_open_rate', 'marketing_click_rate', 'marketing_subscribers', 'marketing_unsubscribes']),
    },
  },
  marketing_campaigns: {name: 'Latest campaigns', defaultSize: 'full', module: 'marketing', permission: null, settings: {limit: limit('5')}},
}

/** The 31 fixed tiles, in the order of the spec's tile list. */
export const TILES: readonly TileDef[] = Object.entries(DEFS).map(([key, d]) => ({...d, key, defaultSize: d.defaultSize ?? 'half'}))
const BY_KEY = new Map(TILES.map((t) => [t.key, t]))

export const APP_TILE_PREFIX = 'svc_app:'
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The app id of an `svc_app:<uuid>` key (lower-cased), or null when the key is not an app tile. */
export function appIdOf(key: string): string | null {
  if (!key.startsWith(APP_TILE_PREFIX)) return null
  const id = key.slice(APP_TILE_PREFIX.length).toLowerCase()
  return UUID_RE.test(id) ? id : null
}

/** An app tile: no module, no permission, size `half`, no settings. */
export function appTile(appId: string, name?: string): TileDef {
  return {key: APP_TILE_PREFIX + appId, name: name ? `App: ${name}` : 'App', defaultSize: 'half', module: null, permission: null, settings: {}}
}

/** The definition of a key (an `svc_app:<uuid>` key gets the app tile shape), or null for an unknown key. */
export function tileDef(key: string): TileDef | null {
  const fixed = BY_KEY.get(key)
  if (fixed) return fixed
  const appId = appIdOf(key)
  return appId ? appTile(appId) : null
}

/** A tile's default config: every setting that has a default. */
export function defaultConfig(tile: TileDef): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [name, s] of Object.entries(tile.settings)) {
    if (s.default === null) continue
    out[name] = Array.isArray(s.default) ? [...s.default] : s.default
  }
  return out
}

/** Settings as `widget.json` shows them: `{options, default, multiple, text}` per setting. */
export function publicSettings(tile: TileDef): Record<string, {options: string[] | null; default: string | string[] | null; multiple: boolean; text: boolean}> {
  const out: Record<string, {options: string[] | null; default: string | string[] | null; multiple: boolean; text: boolean}> = {}
  for (const [name, s] of Object.entries(tile.settings)) {
    out[name] = {
      options: s.options ? [...s.options] : null,
      default: Array.isArray(s.default) ? [...s.default] : s.default,
      multiple: s.multiple,
      text: s.text,
    }
  }
  return out
}
