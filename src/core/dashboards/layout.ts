/** Layout normalisation and the standard (builtin) layouts of platform-api.md. Pure: no I/O. */
import {appIdOf, type DashboardContext, isSize, type SettingDef, type TileDef, tileDef, type TileSize} from './tiles.js'

export const MAX_LAYOUT_ITEMS = 60
export const MAX_ID_LENGTH = 32
const ID_RE = /^[a-z0-9_-]{1,32}$/

/** The API shapes of a layout item and its config are the contract's. */
export type {LayoutItem, TileConfig} from '../contract/dashboards.js'
import type {LayoutItem, TileConfig} from '../contract/dashboards.js'

export interface NormalizeOptions {
  /** Whether an app id (lower-case UUID) is an active app of the account; `svc_app:` tiles of other ids are removed. */
  isAllowedApp: (appId: string) => boolean
  /** Extra filter on tiles (a personal dashboard keeps only tiles its author can use). Default: every tile. */
  isAvailable?: (tile: TileDef) => boolean
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

// C0/C1 control characters (including newlines and tabs): never part of a setting value.
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/

/** An address for `quick_actions.custom_url`: `http(s)://host...` or an in-app path `/...` (never `//` nor `/\`). */
export function isSafeUrl(value: string): boolean {
  if (CONTROL_RE.test(value) || /\s/.test(value)) return false
  if (value.startsWith('/')) return !value.startsWith('//') && !value.startsWith('/\\')
  if (!/^https?:\/\/[^/\\]/i.test(value)) return false
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}

/** One setting value after the rules of the settings table, or undefined when it is removed (disallowed, or equal to the default). */
export function normalizeSetting(def: SettingDef, value: unknown): string | string[] | undefined {
  if (def.multiple) {
    if (!Array.isArray(value)) return undefined
    const picked = new Set(value.filter((v): v is string => typeof v === 'string'))
    const out = def.options!.filter((o) => picked.has(o)) // canonical order, no duplicates, only allowed values
    return out.length === 0 ? undefined : out // empty = the default (everything visible)
  }
  if (def.text) {
    if (typeof value !== 'string') return undefined
    const trimmed = value.trim()
    if (trimmed === '' || [...trimmed].length > (def.maxLength ?? Infinity) || CONTROL_RE.test(trimmed)) return undefined
    if (def.url && !isSafeUrl(trimmed)) return undefined
    return trimmed
  }
  // A single choice; numbers are accepted for numeric options (`limit: 10` → "10").
  const v = typeof value === 'number' && Number.isInteger(value) ? String(value) : value
  if (typeof v !== 'string' || !def.options!.includes(v)) return undefined
  return v === def.default ? undefined : v
}

/** A tile's config after the rules: unknown settings and disallowed values removed, defaults omitted. */
export function normalizeConfig(tile: TileDef, config: unknown): TileConfig {
  const out: TileConfig = {}
  if (!isPlainObject(config)) return out
  for (const [name, def] of Object.entries(tile.settings)) {
    if (!Object.prototype.hasOwnProperty.call(config, name)) continue
    const v = normalizeSetting(def, config[name])
    if (v !== undefined) out[name] = v
  }
  return out
}

/** The id a layout item gets when its own is missing, duplicated or invalid: the key made id-safe. */
export function baseId(key: string): string {
  const appId = appIdOf(key)
  if (appId) return `svc_app-${appId.replace(/-/g, '').slice(0, 8)}`
  return key.toLowerCase().replace(/[^a-z0-9_-]/g, '-').slice(0, MAX_ID_LENGTH) || 'tile'
}

/** `<base>`, `<base>-2`, `<base>-3`, ... (cut so the id stays within 32 characters), the first not taken. */
function freeId(base: string, taken: Set<string>): string {
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? '' : `-${n}`
    const id = base.slice(0, MAX_ID_LENGTH - suffix.length) + suffix
    if (!taken.has(id)) return id
  }
}

/**
 * Normalises a layout as platform-api.md rules it: items that are not objects and unknown keys are
 * removed (so are `svc_app:` tiles of apps that are not active apps of the account, and tiles the
 * `isAvailable` filter refuses); at most 60 items are kept; an unknown size becomes the tile's
 * default size; config goes through `normalizeConfig`; ids are kept when valid and unique (first
 * wins), otherwise assigned `<key>`, `<key>-2`, ...
 */
export function normalizeLayout(input: unknown, options: NormalizeOptions): LayoutItem[] {
  if (!Array.isArray(input)) return []
  const kept: {rawId: unknown; tile: TileDef; size: TileSize; config: TileConfig}[] = []
  for (const raw of input) {
    if (kept.length >= MAX_LAYOUT_ITEMS) break
    if (!isPlainObject(raw) || typeof raw.key !== 'string') continue
    const tile = tileDef(raw.key)
    if (!tile) continue
    const appId = appIdOf(raw.key)
    if (appId && !options.isAllowedApp(appId)) continue
    if (options.isAvailable && !options.isAvailable(tile)) continue
    kept.push({rawId: raw.id, tile, size: isSize(raw.size) ? raw.size : tile.defaultSize, config: normalizeConfig(tile, raw.config)})
  }
  const taken = new Set<string>()
  const ids = kept.map((k) => {
    if (typeof k.rawId === 'string' && ID_RE.test(k.rawId) && !taken.has(k.rawId)) {
      taken.add(k.rawId)
      return k.rawId
    }
    return null
  })
  return kept.map((k, i) => {
    let id = ids[i]
    if (!id) {
      id = freeId(baseId(k.tile.key), taken)
      taken.add(id)
    }
    return {id, key: k.tile.key, size: k.size, config: k.config}
  })
}

type BuiltinItem = [key: string, config?: TileConfig]

/** The standard layouts of the eight contexts, exactly as the spec's table lists them. */
const BUILTIN: Record<DashboardContext, BuiltinItem[]> = {
  main: [['module_header', {module: 'main', frame: 'box'}], ['module_icons']],
  crm: [['module_header', {module: 'crm'}], ['crm_stats'], ['crm_deals'], ['crm_clients'], ['crm_contacts'], ['crm_notes']],
  cms: [['module_header', {module: 'cms'}], ['cms_stats'], ['cms_sites'], ['cms_domains'], ['cms_pages'], ['cms_change_log']],
  organize: [['module_header', {module: 'organize', frame: 'box'}], ['module_icons', {icons: 'organize', title: 'hide'}]],
  mail: [['module_header', {module: 'mail', frame: 'box'}], ['module_icons', {icons: 'mail', title: 'hide'}]],
  kb: [['module_header', {module: 'kb'}], ['kb_stats'], ['kb_knowledge_bases'], ['kb_comments'], ['kb_entries'], ['kb_entry_urls']],
  marketing: [['module_header', {module: 'marketing'}], ['marketing_stats'], ['marketing_campaigns']],
  account: [['module_header', {module: 'account', frame: 'box'}], ['module_icons', {icons: 'account', title: 'hide'}]],
}

/** The standard layout of a context, normalised (ids, default sizes, default values omitted). */
export function builtinLayout(context: DashboardContext): LayoutItem[] {
  return normalizeLayout(
    BUILTIN[context].map(([key, config]) => ({key, config: config ?? {}})),
    {isAllowedApp: () => false},
  )
}
