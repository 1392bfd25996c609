import {Args} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import type {DbView} from '../../core/contract/dbs.js'
import {findDb} from '../../client/refs.js'

export default class DbGet extends BackendCommand {
  static description = 'Show a database (id, code or name): schema, public methods, record count'
  static examples = ['<%= config.bin %> db get books', '<%= config.bin %> db get Books --json']
  static args = {db: Args.string({description: 'database id, code or name', required: true})}

  async run() {
    const {args, flags} = await this.parse(DbGet)
    const db = await findDb(await this.client(flags), args.db)
    this.say(JSON.stringify(db, null, 2))
    return db
  }
}
