/**
 * Public method configuration (`public_methods`, checked by core/contract/dbs.ts) and the write
 * pipeline of public calls. Pure rules.
 */
import {SvcError} from '../errors.js'
import type {Data} from './records.js'
import {dict} from '../safe-keys.js'

export const PUBLIC_METHODS = ['list', 'get', 'create', 'update', 'delete', 'search', 'subscribe'] as const
export type PublicMethod = (typeof PUBLIC_METHODS)[number]
export const AUTO_VARIABLES = ['ip', 'cookie_key', 'user_id', 'user_name'] as const
export type AutoVariable = (typeof AUTO_VARIABLES)[number]
export const SEARCH_PARAMS = ['q', 'limit', 'offset', 'sort', 'table_name'] as const
/** The parameters of `subscribe` (a live feed, docs/realtime.md): only the table to follow. */
export const SUBSCRIBE_PARAMS = ['table_name'] as const

export interface MethodOptions {
  allowed_fields?: string[]
  required_fields?: string[]
  default_values?: Data
  auto_fields?: Record<string, string>
  allowed_params?: string[]
  scope_by?: string
}
export type MethodConfig = true | MethodOptions
export type PublicMethods = Partial<Record<PublicMethod, MethodConfig>>

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Variables of an auto_fields template (`{ip}`, `{cookie_key}`, ...). */
export function autoVariables(template: string): string[] {
  return [...template.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]!)
}

/** The options of an enabled method, or null when the method is not enabled. */
export function methodOptions(config: PublicMethods, method: string): MethodOptions | null {
  if (!(PUBLIC_METHODS as readonly string[]).includes(method)) return null
  const value = config[method as PublicMethod]
  if (value === true) return {}
  if (isObject(value)) return value as MethodOptions
  return null
}

/** The auto_fields template that feeds `scope_by`: this method's, else create's, else any method's. */
export function scopeTemplate(config: PublicMethods, method: PublicMethod, field: string): string | undefined {
  const own = methodOptions(config, method)?.auto_fields?.[field]
  if (typeof own === 'string') return own
  const order: PublicMethod[] = ['create', 'update', 'list', 'get', 'search', 'delete', 'subscribe']
  for (const m of order) {
    const value = config[m]
    if (isObject(value) && isObject(value.auto_fields) && typeof value.auto_fields[field] === 'string') return value.auto_fields[field] as string
  }
  return undefined
}

export type Visitor = Record<AutoVariable, string>

export const renderAuto = (template: string, visitor: Visitor) =>
  template.replace(/\{(ip|cookie_key|user_id|user_name)\}/g, (_, v: AutoVariable) => visitor[v])

/** Which visitor variables a method needs (to know whether a visitor cookie must be issued). */
export function neededVariables(config: PublicMethods, method: PublicMethod): Set<string> {
  const opts = methodOptions(config, method)
  const out = new Set<string>()
  for (const t of Object.values(opts?.auto_fields ?? {})) for (const v of autoVariables(t)) out.add(v)
  if (opts?.scope_by) for (const v of autoVariables(scopeTemplate(config, method, opts.scope_by) ?? '')) out.add(v)
  return out
}

/** The visitor's scope for a method: `{field, value}`; value '' sees nothing. */
export function scopeOf(config: PublicMethods, method: PublicMethod, visitor: Visitor): {field: string; value: string} | undefined {
  const field = methodOptions(config, method)?.scope_by
  if (!field) return undefined
  const template = scopeTemplate(config, method, field)
  return {field, value: template ? renderAuto(template, visitor) : ''}
}

/**
 * Data of a public create/update: allowed_fields filter, default_values (create), auto_fields
 * (always overwrite), then required_fields on the resulting record (`existing` merged first for update).
 */
export function publicData(options: MethodOptions, input: Data, visitor: Visitor, mode: 'create' | 'update', existing: Data = {}): Data {
  // No prototype: keys of the visitor's data never reach Object.prototype.
  let data: Data = Object.assign(dict<unknown>(), input)
  if (options.allowed_fields) {
    const allowed = new Set(options.allowed_fields)
    data = Object.assign(dict<unknown>(), Object.fromEntries(Object.entries(data).filter(([k]) => allowed.has(k))))
  }
  if (mode === 'create') {
    for (const [k, v] of Object.entries(options.default_values ?? {})) if (data[k] === undefined || data[k] === null) data[k] = v
  }
  for (const [k, template] of Object.entries(options.auto_fields ?? {})) data[k] = renderAuto(template, visitor)
  const merged = Object.assign(dict<unknown>(), existing, data)
  const missing = dict<string[]>()
  for (const f of options.required_fields ?? []) {
    const v = merged[f]
    if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) missing[f] = ['is required']
  }
  if (Object.keys(missing).length) {
    const message = `missing required field${Object.keys(missing).length > 1 ? 's' : ''}: ${Object.keys(missing).join(', ')}`
    throw new SvcError('validation', 422, message, {error: message, fields: missing})
  }
  return data
}

/** Search parameters a visitor may use: allowed_params when set, else all of SEARCH_PARAMS. */
export function allowedSearchParams(options: MethodOptions): Set<string> {
  return new Set(options.allowed_params ?? SEARCH_PARAMS)
}
