import type {AccountsRepo} from './accounts/types.js'
import type {AppsRepo} from './apps/types.js'
import type {DashboardsRepo} from './dashboards/types.js'
import type {DbsRepo} from './dbs/types.js'
import type {FlowsRepo} from './flows/types.js'
import type {PromptsRepo} from './prompts/types.js'

/**
 * Everything http needs from storage. The SQLite store implements it; a PostgreSQL store could
 * implement it beside it without touching core or http (every method is async).
 */
export interface Store {
  readonly accounts: AccountsRepo
  readonly prompts: PromptsRepo
  readonly dashboards: DashboardsRepo
  readonly apps: AppsRepo
  readonly dbs: DbsRepo
  readonly flows: FlowsRepo
  /** Where files beside the database live (compile cache, ...). */
  readonly dataDir: string
  close(): void
}
