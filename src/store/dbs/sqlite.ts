import type {Sqlite} from '../sqlite.js'
import type {DbsRepo} from './types.js'

export class SqliteDbsRepo implements DbsRepo {
  constructor(private readonly db: Sqlite) {}
}
