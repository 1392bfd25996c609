import type {Sqlite} from '../sqlite.js'
import type {DashboardsRepo} from './types.js'

export class SqliteDashboardsRepo implements DashboardsRepo {
  constructor(private readonly db: Sqlite) {}
}
