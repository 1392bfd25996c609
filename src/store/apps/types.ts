/** Repository interface of the apps area: what http needs from storage, implementation-neutral. */
import type {AppAction} from '../../core/contract/apps.js'

/** An app action: the contract's (src/core/contract/apps.ts). */
export type {AppAction} from '../../core/contract/apps.js'

/** What the action endpoints (flows area) need to know about an app. */
export interface AppActionTarget {
  id: string
  account_id: number
  active: boolean
  public: boolean
  actions: AppAction[]
}

/** What core and the compilers need of an app (src/core/apps/types.ts): the store reads and writes these. */
export type {AppBuild, AppData, AppRecord, AppSummary} from '../../core/apps/types.js'
import type {AppBuild, AppData, AppRecord, AppSummary} from '../../core/apps/types.js'

export interface AppListQuery {
  q?: string
  app_engine?: string
  active?: boolean
}

/** An asset of an app (docs/apps.md "Assets"), without its bytes. */
export interface AppAsset {
  path: string
  content_type: string
  size: number
  sha256: string
  updated_at: string
}

export interface AppsRepo {
  /** The app with this UUID (any account), for `/svc/apps/:id/action/:name`; null when unknown. */
  actionTarget(appId: string): Promise<AppActionTarget | null>

  /** The account's apps without their builds (never read to list). */
  list(accountId: number, query?: AppListQuery): Promise<AppSummary[]>
  get(accountId: number, id: string): Promise<AppRecord | null>
  /** Any account: for `/a/:id`. */
  getById(id: string): Promise<AppRecord | null>
  /** Apps with this url_code, across accounts, oldest first. */
  findByUrlCode(urlCode: string): Promise<AppRecord[]>
  /** Whether the url_code is used by another app (of any account: url_codes are unique server-wide). */
  urlCodeTaken(accountId: number, urlCode: string, exceptId?: string): Promise<boolean>
  create(accountId: number, userId: number, input: AppData, build: AppBuild): Promise<AppRecord>
  /**
   * Replaces the user fields and the build; 404 when the app is not in the account. `check` sees the
   * stored app inside the write, before it changes, and may throw (If-Match).
   */
  update(accountId: number, id: string, userId: number, input: AppData, build: AppBuild, check?: (current: AppRecord) => void): Promise<AppRecord>
  /** True when a row was removed; `check` as in update. */
  delete(accountId: number, id: string, check?: (current: AppRecord) => void): Promise<boolean>

  /** The app's assets, by path. */
  listAssets(appId: string): Promise<AppAsset[]>
  /** One asset with its bytes, or null. */
  getAsset(appId: string, path: string): Promise<(AppAsset & {data: Buffer}) | null>
  /**
   * Stores (or replaces) an asset unless the app's assets would then hold more than `maxTotal`
   * bytes or `maxCount` files; checked and written in one transaction. False when refused.
   */
  putAsset(appId: string, asset: AppAsset & {data: Buffer}, limits: {maxTotal: number; maxCount: number}): Promise<boolean>
  /** True when a row was removed. */
  deleteAsset(appId: string, path: string): Promise<boolean>

  /** The content-addressed compile cache: same engine, css engine, source and compilers → same output. */
  cachedBuild(hash: string): Promise<AppBuild | null>
  saveBuild(build: AppBuild): Promise<void>
}
