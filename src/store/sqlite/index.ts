import {resolve} from 'node:path'
import type {Store} from '../types.js'
import {SqlAccountsRepo} from '../accounts/repo.js'
import {SqlAppsRepo} from '../apps/repo.js'
import {sqliteCluster} from './cluster.js'
import {openSqlite} from './connection.js'
import {SqliteDbsRepo} from './dbs.js'
import {SqlDashboardsRepo} from '../dashboards/repo.js'
import {SqlFlowsRepo} from '../flows/repo.js'
import {SqlPromptsRepo} from '../prompts/repo.js'
import {SqlitePort} from './port.js'

/** Opens the SQLite store of a data dir (`DIR/svc.sqlite`), running pending migrations. */
export function openSqliteStore(dataDir: string): Store {
  const db = openSqlite(dataDir)
  const sql = new SqlitePort(db)
  let closed = false
  return {
    driver: 'sqlite',
    accounts: new SqlAccountsRepo(sql),
    prompts: new SqlPromptsRepo(sql),
    dashboards: new SqlDashboardsRepo(sql),
    apps: new SqlAppsRepo(sql),
    dbs: new SqliteDbsRepo(db),
    flows: new SqlFlowsRepo(sql),
    cluster: sqliteCluster(),
    dataDir: resolve(dataDir),
    async close() {
      if (closed) return
      closed = true
      db.close()
    },
  }
}
