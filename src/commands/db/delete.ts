import {Args} from '@oclif/core'
import {BackendCommand} from '../../cli/base-command.js'

export default class DbDelete extends BackendCommand {
  static description = 'Delete a database together with its records'
  static args = {db: Args.string({description: 'database id or code', required: true})}

  async run() {
    const {args, flags} = await this.parse(DbDelete)
    await (await this.client(flags)).call('deleteDb', {params: {id: args.db}})
    this.say(`Deleted database ${args.db}`)
    return {deleted: args.db}
  }
}
