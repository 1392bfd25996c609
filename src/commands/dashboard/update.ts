import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {parseJsonArg, readFileOrStdin} from '../../cli/read-input.js'
import {SvcError} from '../../core/errors.js'
import {type DashboardView, layoutFromJson} from '../../core/dashboards/format.js'
import {dashboardId} from '../../client/refs.js'

export default class DashboardUpdate extends BackendCommand {
  static description = 'Change the name, layout or company-default flag of a dashboard'
  static examples = ['<%= config.bin %> dashboard update 4 --name "Sales 2026"', '<%= config.bin %> dashboard update Sales --layout-file layout.json --default']
  static args = {id: Args.string({description: 'dashboard id or name', required: true})}
  static flags = {
    name: Flags.string({description: 'new name (max 100 characters)'}),
    'layout-file': Flags.string({description: 'JSON file with the new layout items ("-" for stdin)'}),
    default: Flags.boolean({description: 'make it (or, with --no-default, stop it being) the company default', allowNo: true}),
  }

  async run() {
    const {args, flags} = await this.parse(DashboardUpdate)
    const dashboard: Record<string, unknown> = {name: flags.name, is_default: flags.default}
    const file = flags['layout-file']
    if (file !== undefined) dashboard.layout = layoutFromJson(parseJsonArg(await readFileOrStdin(file), file), file)
    if (Object.values(dashboard).every((v) => v === undefined)) {
      throw new SvcError('usage', 0, 'nothing to change', undefined, 'give --name, --layout-file or --[no-]default')
    }
    const client = await this.client(flags)
    const d = await client.call('updateDashboard', {params: {id: await dashboardId(client, args.id)}, body: {dashboard}})
    this.say(`Updated dashboard #${d.id} "${d.name}" (${d.layout.length} tiles${d.is_default ? ', company default' : ''})`)
    return d
  }
}
