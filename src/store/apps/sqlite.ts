import type {Sqlite} from '../sqlite.js'
import type {AppActionTarget, AppsRepo} from './types.js'

export class SqliteAppsRepo implements AppsRepo {
  constructor(private readonly db: Sqlite) {}

  async actionTarget(appId: string): Promise<AppActionTarget | null> {
    // The apps table arrives with the apps migrations; until then there is no app to act on.
    const table = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'apps'").get()
    if (!table) return null
    const row = this.db.prepare('SELECT id, account_id, active, public, actions FROM apps WHERE id = ?').get(appId) as
      | {id: string; account_id: number; active: number; public: number; actions: string}
      | undefined
    if (!row) return null
    return {id: row.id, account_id: row.account_id, active: !!row.active, public: !!row.public, actions: JSON.parse(row.actions)}
  }
}
