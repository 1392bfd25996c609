import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {describeCurrent, type SelectView, selectTarget} from '../../core/dashboards/format.js'
import {CONTEXTS} from '../../core/dashboards/tiles.js'

export default class DashboardSelect extends BackendCommand {
  static description = 'Choose the dashboard you see in a context: an id, "builtin" (standard layout) or "default" (company default)'
  static examples = ['<%= config.bin %> dashboard select 4', '<%= config.bin %> dashboard select builtin --context crm']
  static args = {target: Args.string({description: 'dashboard id, builtin, or default', required: true})}
  static flags = {context: Flags.string({description: 'context (default: the dashboard\'s own, else main)', options: [...CONTEXTS]})}

  async run() {
    const {args, flags} = await this.parse(DashboardSelect)
    const body = {context: flags.context, dashboard_id: selectTarget(args.target)}
    const r = await (await this.client(flags)).call('selectDashboard', {body})
    this.say(`Context ${r.context} now shows: ${describeCurrent(r, r.context)}`)
    return r
  }
}
