import {Args} from '#oclif'
import {BackendCommand, yesFlag} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import {readTagged, unlessChanged} from '../../cli/if-match.js'
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
    const {value: d, ifMatch} = await readTagged(client, 'getDashboard', {params: {id}})
    const what = `dashboard #${id} "${d.name}"${d.shared ? ' (company)' : ''}`
    if (!(await confirmDestructive({yes: flags.yes, action: `delete ${what}`, message: `Delete ${what}?`}))) {
      this.say('Nothing deleted.')
      return {id, deleted: false}
    }
    // If-Match: what is deleted is the version shown (and confirmed); a change made meanwhile stops it.
    await unlessChanged(what, 'dashboard delete', () => client.call('deleteDashboard', {params: {id}, headers: ifMatch}), 'nothing was deleted')
    this.say(`Deleted ${what}`)
    return {id, deleted: true}
  }
}
