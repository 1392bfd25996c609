import {Args} from '@oclif/core'
import {BackendCommand} from '../../cli/base-command.js'

export default class DashboardDelete extends BackendCommand {
  static description = 'Delete a dashboard (users who chose it fall back to the company default, else the standard layout)'
  static args = {id: Args.integer({description: 'dashboard id', required: true, min: 1})}

  async run() {
    const {args, flags} = await this.parse(DashboardDelete)
    await (await this.client(flags)).call('deleteDashboard', {params: {id: args.id}})
    this.say(`Deleted dashboard #${args.id}`)
    return {id: args.id, deleted: true}
  }
}
