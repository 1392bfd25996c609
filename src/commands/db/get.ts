import {Args} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import type {DbView} from '../../core/contract/dbs.js'

export default class DbGet extends BackendCommand {
  static description = 'Show a database (id or code): schema, public methods, record count'
  static args = {db: Args.string({description: 'database id or code', required: true})}

  async run() {
    const {args, flags} = await this.parse(DbGet)
    const db = await (await this.client(flags)).call('getDb', {params: {id: args.db}})
    this.say(JSON.stringify(db, null, 2))
    return db
  }
}
