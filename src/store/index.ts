import {resolve} from 'node:path'
import {SqliteAccountsRepo} from './accounts/sqlite.js'
import {SqliteAppsRepo} from './apps/sqlite.js'
import {SqliteDashboardsRepo} from './dashboards/sqlite.js'
import {SqliteDbsRepo} from './dbs/sqlite.js'
import {SqliteFlowsRepo} from './flows/sqlite.js'
import {SqlitePromptsRepo} from './prompts/sqlite.js'
import {openSqlite} from './sqlite.js'
import type {Store} from './types.js'

export type {Store} from './types.js'

/** Opens the SQLite store of a data dir (`DIR/svc.sqlite`), running pending migrations. */
export function openStore(dataDir: string): Store {
  const db = openSqlite(dataDir)
  let closed = false
  return {
    accounts: new SqliteAccountsRepo(db),
    prompts: new SqlitePromptsRepo(db),
    dashboards: new SqliteDashboardsRepo(db),
    apps: new SqliteAppsRepo(db),
    dbs: new SqliteDbsRepo(db),
    flows: new SqliteFlowsRepo(db),
    dataDir: resolve(dataDir),
    close() {
      if (closed) return
      closed = true
      db.close()
    },
  }
}
