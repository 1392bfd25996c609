import {Args} from '@oclif/core'
import {BackendCommand} from '../../../cli/base-command.js'

export default class DbRecordsDelete extends BackendCommand {
  static description = 'Delete a record'
  static args = {
    db: Args.string({description: 'database id or code', required: true}),
    id: Args.integer({description: 'record id', required: true}),
  }

  async run() {
    const {args, flags} = await this.parse(DbRecordsDelete)
    await (await this.client(flags)).call('deleteRecord', {params: {db_id: args.db, id: args.id}})
    this.say(`Deleted record ${args.id}`)
    return {id: args.id, deleted: true}
  }
}
