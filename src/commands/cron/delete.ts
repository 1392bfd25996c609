import {Args} from '@oclif/core'
import {BackendCommand} from '../../cli/base-command.js'

export default class CronDelete extends BackendCommand {
  static description = 'Delete a cron (its past runs stay listed)'
  static args = {id: Args.integer({description: 'cron id', required: true})}

  async run() {
    const {args, flags} = await this.parse(CronDelete)
    await (await this.client(flags)).call('deleteCron', {params: {id: args.id}})
    this.say(`Deleted cron ${args.id}`)
    return {id: args.id, deleted: true}
  }
}
