/** Response shapes of the dashboard endpoints and the pure helpers `svc dashboard` prints them with. */
import {SvcError} from '../errors.js'
import type {WidgetsView} from '../contract/dashboards.js'
import {tileDef} from './tiles.js'


/** The response objects of the API are the contract's (src/core/contract/dashboards.ts). */
export type {DashboardChoice, DashboardView, SelectView, WidgetView, WidgetsView} from '../contract/dashboards.js'

/** The name of a tile key for a terminal (catalog name, or the key itself when unknown). */
export const tileName = (key: string) => tileDef(key)?.name ?? key

export const kindOf = (d: {shared: boolean; is_default: boolean}) => (d.shared ? (d.is_default ? 'company, default' : 'company') : 'personal')

/** The shown dashboard of a widgets answer, described in one line. */
export function describeCurrent(w: WidgetsView, context: string): string {
  if (w.current_id === 'builtin') return `Standard layout (context ${context})`
  const d = w.dashboards.find((x) => x.id === w.current_id)
  return `${d ? d.name : 'Dashboard'} #${w.current_id} (context ${context}, ${d ? kindOf(d) : 'dashboard'})`
}

/**
 * The layout in a `--layout-file`: a JSON array of items, or an object holding one as `layout`
 * (a saved `svc dashboard get --json`) or as `dashboard.layout` (a request body).
 */
export function layoutFromJson(value: unknown, where: string): unknown[] {
  if (Array.isArray(value)) return value
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>
    if (Array.isArray(o.layout)) return o.layout
    const d = o.dashboard as Record<string, unknown> | undefined
    if (d && typeof d === 'object' && Array.isArray(d.layout)) return d.layout
  }
  throw new SvcError('usage', 0, `${where} must hold a JSON array of layout items (or an object with "layout")`)
}

/** `svc dashboard select TARGET`: an id, `builtin`, or `default`/empty for the company default. */
export function selectTarget(target: string): number | 'builtin' | '' {
  if (target === 'builtin') return 'builtin'
  if (target === '' || target === 'default') return ''
  if (/^[1-9][0-9]{0,14}$/.test(target)) return Number(target)
  throw new SvcError('usage', 0, `TARGET must be a dashboard id, "builtin" or "default", got "${target}"`)
}
