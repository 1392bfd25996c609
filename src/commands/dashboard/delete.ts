import {Args} from '#oclif'
import {BackendCommand, yesFlag} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import type {DashboardView} from '../../core/dashboards/format.js'
import {dashboardId} from '../../client/refs.js'

export default class DashboardDelete extends BackendCommand {
  static description = 'Delete a dashboard (users who chose it fall back to the company default, else the standard layout); asks first'
  static examples = ['<%= config.bin %> dashboard delete 4', '<%= config.bin %> dashboard delete Sales --yes']
  static args = {id: Args.string({description: 'dashboard id or name', required: true})}
  static flags = {yes: yesFlag}

  async run() {
    const {args, flags} = await this.parse(DashboardDelete)
    const client = await this.client(flags)
    const id = await dashboardId(client, args.id)
    const d = await client.call('getDashboard', {params: {id}})
    const what = `dashboard #${id} "${d.name}"${d.shared ? ' (company)' : ''}`
    if (!(await confirmDestructive({yes: flags.yes, action: `delete ${what}`, message: `Delete ${what}?`}))) {
      this.say('Nothing deleted.')
      return {id, deleted: false}
    }
    await client.call('deleteDashboard', {params: {id}})
    this.say(`Deleted ${what}`)
    return {id, deleted: true}
  }
}
