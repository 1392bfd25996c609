/** The repositories written once over the SQL port: every driver's store holds these (and its own dbs and cluster). */
import {SqlAccountsRepo} from '../accounts/repo.js'
import {SqlAppsRepo} from '../apps/repo.js'
import {SqlDashboardsRepo} from '../dashboards/repo.js'
import {SqlFlowsRepo} from '../flows/repo.js'
import {SqlPromptsRepo} from '../prompts/repo.js'
import type {Store} from '../types.js'
import type {SqlPort} from './port.js'

export function sqlRepos(sql: SqlPort): Pick<Store, 'accounts' | 'prompts' | 'dashboards' | 'apps' | 'flows'> {
  return {
    accounts: new SqlAccountsRepo(sql),
    prompts: new SqlPromptsRepo(sql),
    dashboards: new SqlDashboardsRepo(sql),
    apps: new SqlAppsRepo(sql),
    flows: new SqlFlowsRepo(sql),
  }
}
