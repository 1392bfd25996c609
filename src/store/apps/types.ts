/** Repository interface of the apps area: what http needs from storage, implementation-neutral. */

/** An app action as the spec declares it (element of `actions`). */
export interface AppAction {
  action: string
  flow_code: string
  description?: string
  public?: boolean
}

/** What the action endpoints (flows area) need to know about an app. */
export interface AppActionTarget {
  id: string
  account_id: number
  active: boolean
  public: boolean
  actions: AppAction[]
}

export interface AppsRepo {
  /** The app with this UUID (any account), for `/svc/apps/:id/action/:name`; null when unknown. */
  actionTarget(appId: string): Promise<AppActionTarget | null>
}
