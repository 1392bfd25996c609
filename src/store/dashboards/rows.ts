/**
 * The dashboard and selection rows as the repository (repo.ts) reads and writes them: the columns
 * and these statements are the same in SQLite and PostgreSQL (booleans 0/1 integers, the layout JSON text).
 */
import type {LayoutItem} from '../../core/contract/dashboards.js'
import type {DashboardContext} from '../../core/dashboards/tiles.js'
import type {ActiveApp, DashboardPatch, DashboardRecord, NewDashboard, Selection} from './types.js'

export interface DashboardRow {
  id: number; account_id: number; name: string; context: string; layout: string; shared: number; is_default: number
  created_by_id: number; created_at: string; updated_at: string
}

export function toDashboard(row: DashboardRow): DashboardRecord {
  return {
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    context: row.context as DashboardContext, // written only through the contract's enum
    layout: JSON.parse(row.layout) as LayoutItem[],
    shared: !!row.shared,
    is_default: !!row.is_default,
    created_by_id: row.created_by_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

/** Dashboards a user sees: the shared ones and their own. */
export const LIST_VISIBLE = 'SELECT * FROM dashboards WHERE account_id = ? AND (shared = 1 OR created_by_id = ?) ORDER BY id'
export const LIST_VISIBLE_IN_CONTEXT = 'SELECT * FROM dashboards WHERE account_id = ? AND context = ? AND (shared = 1 OR created_by_id = ?) ORDER BY id'
export const COMPANY_DEFAULT = 'SELECT * FROM dashboards WHERE account_id = ? AND context = ? AND shared = 1 AND is_default = 1'

export const INSERT_DASHBOARD = `INSERT INTO dashboards (account_id, name, context, layout, shared, is_default, created_by_id, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`
export const insertDashboardParams = (accountId: number, userId: number, input: NewDashboard, at: string) =>
  [accountId, input.name, input.context, JSON.stringify(input.layout), input.shared ? 1 : 0, input.is_default ? 1 : 0, userId, at, at]

export const UPDATE_DASHBOARD = 'UPDATE dashboards SET name = ?, layout = ?, is_default = ?, updated_at = ? WHERE account_id = ? AND id = ? RETURNING *'
/** UPDATE_DASHBOARD's values: what the patch leaves out keeps its current value. */
export const updateDashboardParams = (current: DashboardRow, patch: DashboardPatch, at: string) => [
  patch.name ?? current.name,
  patch.layout ? JSON.stringify(patch.layout) : current.layout,
  patch.is_default === undefined ? current.is_default : patch.is_default ? 1 : 0,
  at, current.account_id, current.id,
]

/** Whether a patch makes a dashboard its context's company default (the old one is cleared first). */
export const becomesDefault = (current: DashboardRow, patch: DashboardPatch) => patch.is_default === true && !current.is_default

/** Clears the company default of a context: binds updated_at, account, context. */
export const CLEAR_DEFAULT = 'UPDATE dashboards SET is_default = 0, updated_at = ? WHERE account_id = ? AND context = ? AND is_default = 1'

/** Binds account, user, context, dashboard id (null = the standard layout). */
export const UPSERT_SELECTION = `INSERT INTO dashboard_selections (account_id, user_id, context, dashboard_id) VALUES (?, ?, ?, ?)
  ON CONFLICT (user_id, context) DO UPDATE SET dashboard_id = excluded.dashboard_id`

export const SELECTION = 'SELECT dashboard_id FROM dashboard_selections WHERE account_id = ? AND user_id = ? AND context = ?'
export const DELETE_SELECTION = 'DELETE FROM dashboard_selections WHERE account_id = ? AND user_id = ? AND context = ?'
/** No selection row means the company default; a row with no dashboard the standard layout. */
export const toSelection = (row: {dashboard_id: number | null} | undefined): Selection =>
  !row ? {kind: 'default'} : row.dashboard_id === null ? {kind: 'builtin'} : {kind: 'dashboard', id: row.dashboard_id}

export const ACTIVE_APPS = 'SELECT id, name FROM apps WHERE account_id = ? AND active = 1 ORDER BY name, id'
export const toActiveApp = (r: {id: string; name: string | null}): ActiveApp => ({id: String(r.id).toLowerCase(), name: r.name ?? ''})
