import {BackendCommand, yesFlag} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import {idArg} from '../../cli/args.js'

export default class CronDelete extends BackendCommand {
  static description = 'Delete a cron (its past runs stay listed); asks first'
  static examples = ['<%= config.bin %> cron delete 3', '<%= config.bin %> cron delete 3 --yes']
  static args = {id: idArg({name: 'ID', description: 'cron id', listedBy: 'svc cron list'})}
  static flags = {yes: yesFlag}

  async run() {
    const {args, flags} = await this.parse(CronDelete)
    const client = await this.client(flags)
    await client.call('getCron', {params: {id: args.id}})
    if (!(await confirmDestructive({yes: flags.yes, action: `delete cron ${args.id}`, message: `Delete cron ${args.id}?`}))) {
      this.say('Nothing deleted.')
      return {id: args.id, deleted: false}
    }
    await client.call('deleteCron', {params: {id: args.id}})
    this.say(`Deleted cron ${args.id}`)
    return {id: args.id, deleted: true}
  }
}
