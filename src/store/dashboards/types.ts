/** Repository interface of the dashboards area: what http needs from storage, implementation-neutral. */
import type {DashboardView, LayoutItem, SelectionTarget} from '../../core/contract/dashboards.js'
import type {DashboardContext} from '../../core/dashboards/tiles.js'

/**
 * A stored dashboard: the API object of the contract (core/contract/dashboards.ts) without
 * `editable`, which depends on the viewer, and with what the store keeps besides.
 */
export type DashboardRecord = Omit<DashboardView, 'editable'> & {account_id: number; created_at: string}

export interface NewDashboard {
  name: string
  context: DashboardContext
  /** Already normalised. */
  layout: LayoutItem[]
  shared: boolean
  is_default: boolean
}

export interface DashboardPatch {
  name?: string
  layout?: LayoutItem[]
  is_default?: boolean
}

/** A user's choice in one context: a dashboard, the standard layout, or none (the company default). */
export type Selection = SelectionTarget

export interface ActiveApp {
  id: string
  name: string
}

export interface DashboardsRepo {
  /** Dashboards the user sees: company ones plus their own, by id; optionally of one context. */
  listVisible(accountId: number, userId: number, context?: string): Promise<DashboardRecord[]>
  get(accountId: number, id: number): Promise<DashboardRecord | null>
  /** Creates it; with `is_default` clears the previous default of the context; makes it the author's selection in its context. */
  create(accountId: number, userId: number, input: NewDashboard): Promise<DashboardRecord>
  /**
   * Applies the patch (`is_default: true` clears the previous default of the context); null when not in the account.
   * `check` sees the stored dashboard inside the write, before it changes, and may throw (If-Match).
   */
  update(accountId: number, id: number, patch: DashboardPatch, check?: (current: DashboardRecord) => void): Promise<DashboardRecord | null>
  /** Removes it (selections of it revert to empty); false when not in the account. `check` as in update. */
  delete(accountId: number, id: number, check?: (current: DashboardRecord) => void): Promise<boolean>
  /** The company default of a context, or null. */
  companyDefault(accountId: number, context: string): Promise<DashboardRecord | null>
  getSelection(accountId: number, userId: number, context: string): Promise<Selection>
  /**
   * Stores the selection. A dashboard must still exist in the account, in this context, and be
   * visible to the user (checked again inside the write): false otherwise.
   */
  setSelection(accountId: number, userId: number, context: string, selection: Selection): Promise<boolean>
  /** Active apps of the account (the `apps` table, when the apps area has created it). */
  activeApps(accountId: number): Promise<ActiveApp[]>
}
