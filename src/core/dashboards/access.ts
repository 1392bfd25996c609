/** Who may see, use and change dashboards and tiles (platform-api.md Rules, decisions.md `editable`). Pure. */
import {can, hasPermission, type Principal} from '../auth/permissions.js'
import type {LayoutItem} from './layout.js'
import {appIdOf, type TileDef, tileDef} from './tiles.js'

export interface Viewer {
  user: Pick<Principal, 'id' | 'role' | 'permissions'>
  /** Modules enabled on the account (account.settings.modules). */
  modules: readonly string[]
  /** Whether an app id is an active app of the account. */
  isActiveApp: (appId: string) => boolean
}

/** A tile is available when its module is enabled and the user holds its permission; an app tile when the app is active. */
export function tileAvailable(viewer: Viewer, tile: TileDef): boolean {
  return tileRefusal(viewer, tile) === null
}

/** Why a tile is not available to the viewer (the rule of tileAvailable, in words), or null when it is. */
export function tileRefusal(viewer: Viewer, tile: TileDef): string | null {
  if (tile.module && !viewer.modules.includes(tile.module)) return `the ${tile.module} module is not enabled on the account`
  if (tile.permission && !hasPermission(viewer.user, tile.permission)) return `needs the ${tile.permission} permission`
  const appId = appIdOf(tile.key)
  if (appId && !viewer.isActiveApp(appId)) return 'the app is not active'
  return null
}

/** The items of a layout the viewer may see (rule 2: each viewer sees only the tiles they may access). */
export function visibleLayout(viewer: Viewer, layout: readonly LayoutItem[]): LayoutItem[] {
  return layout.filter((item) => {
    const tile = tileDef(item.key)
    return tile !== null && tileAvailable(viewer, tile)
  })
}

export interface DashboardOwnership {
  shared: boolean
  created_by_id: number
}

/** Company dashboards are seen by everyone of the account; a personal one only by its author (others get 404). */
export const canView = (user: Pick<Principal, 'id'>, d: DashboardOwnership) => d.shared || d.created_by_id === user.id

/**
 * Why a user may not create or change a dashboard of this kind, or null when they may:
 * a company dashboard needs permission `account`; with the `toolkit` module every change also
 * needs `dashboard_advanced`.
 */
export function changeRefusal(user: Pick<Principal, 'role' | 'permissions'>, modules: readonly string[], shared: boolean): string | null {
  if (shared && !can(user, 'dashboard.write_company')) return 'permission "account" required for company dashboards'
  if (modules.includes('toolkit') && !hasPermission(user, 'dashboard_advanced')) return 'permission "dashboard_advanced" required'
  return null
}

/** decisions.md `editable`: the author of a personal dashboard, or a holder of the company-dashboard permissions. */
export function isEditable(user: Pick<Principal, 'id' | 'role' | 'permissions'>, modules: readonly string[], d: DashboardOwnership): boolean {
  if (!canView(user, d)) return false
  return changeRefusal(user, modules, d.shared) === null
}
