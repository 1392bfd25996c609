/** The repositories written once over the SQL port: every driver's store holds these (and its own dbs and cluster). */
import {SqlAccountsRepo} from '../accounts/repo.js'
import {SqlAppsRepo} from '../apps/repo.js'
import {SqlDashboardsRepo} from '../dashboards/repo.js'
import {SqlFlowsRepo} from '../flows/repo.js'
import {SqlPromptsRepo} from '../prompts/repo.js'
import {SqlJournalRepo} from '../journal/repo.js'
import {JournalContext} from '../journal/writer.js'
import type {JournalSignal} from '../journal/signal.js'
import type {SearchUpkeep} from '../dbs/types.js'
import type {Store} from '../types.js'
import type {LongRead, SqlPort} from './port.js'

export function sqlRepos(sql: SqlPort, context: JournalContext, upkeep?: SearchUpkeep, signal?: JournalSignal, longRead?: LongRead): Pick<Store, 'accounts' | 'prompts' | 'dashboards' | 'apps' | 'flows' | 'journal'> {
  return {
    accounts: new SqlAccountsRepo(sql, context),
    prompts: new SqlPromptsRepo(sql, context),
    dashboards: new SqlDashboardsRepo(sql, context),
    apps: new SqlAppsRepo(sql, context),
    flows: new SqlFlowsRepo(sql, context),
    journal: new SqlJournalRepo(sql, context, () => upkeep, signal, longRead),
  }
}
