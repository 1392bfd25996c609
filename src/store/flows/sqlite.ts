import type {Sqlite} from '../sqlite.js'
import type {FlowsRepo} from './types.js'

export class SqliteFlowsRepo implements FlowsRepo {
  constructor(private readonly db: Sqlite) {}
}
