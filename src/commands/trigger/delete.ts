import {BackendCommand, yesFlag} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import {idArg} from '../../cli/args.js'

export default class TriggerDelete extends BackendCommand {
  static description = 'Delete a db trigger (its past runs stay listed); asks first'
  static examples = ['<%= config.bin %> trigger delete 3', '<%= config.bin %> trigger delete 3 --yes']
  static args = {id: idArg({name: 'ID', description: 'db trigger id', listedBy: 'svc trigger list'})}
  static flags = {yes: yesFlag}

  async run() {
    const {args, flags} = await this.parse(TriggerDelete)
    const client = await this.client(flags)
    await client.call('getDbTrigger', {params: {id: args.id}})
    if (!(await confirmDestructive({yes: flags.yes, action: `delete db trigger ${args.id}`, message: `Delete db trigger ${args.id}?`}))) {
      this.say('Nothing deleted.')
      return {id: args.id, deleted: false}
    }
    await client.call('deleteDbTrigger', {params: {id: args.id}})
    this.say(`Deleted db trigger ${args.id}`)
    return {id: args.id, deleted: true}
  }
}
