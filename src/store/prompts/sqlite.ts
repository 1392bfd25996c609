import type {Sqlite} from '../sqlite.js'
import type {PromptsRepo} from './types.js'

export class SqlitePromptsRepo implements PromptsRepo {
  constructor(private readonly db: Sqlite) {}
}
