import type {Sqlite} from '../sqlite.js'
import type {AppsRepo} from './types.js'

export class SqliteAppsRepo implements AppsRepo {
  constructor(private readonly db: Sqlite) {}
}
