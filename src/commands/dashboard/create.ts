import {Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {parseJsonArg, readFileOrStdin} from '../../cli/read-input.js'
import {type DashboardView, layoutFromJson} from '../../core/dashboards/format.js'
import {CONTEXTS} from '../../core/dashboards/tiles.js'

export default class DashboardCreate extends BackendCommand {
  static description = 'Create a dashboard (it becomes your selection in its context)'
  static examples = ['svc dashboard create --name "Sales" --context crm --layout-file layout.json', 'svc dashboard create --name Home --shared --default']
  static flags = {
    name: Flags.string({description: 'name (max 100 characters)', required: true}),
    context: Flags.string({description: 'where it is shown (default main)', options: [...CONTEXTS]}),
    shared: Flags.boolean({description: 'a company dashboard (needs permission account)'}),
    default: Flags.boolean({description: 'the company default of its context (with --shared)'}),
    'layout-file': Flags.string({description: 'JSON file with the layout items ("-" for stdin); default the standard layout'}),
  }

  async run() {
    const {flags} = await this.parse(DashboardCreate)
    const file = flags['layout-file']
    const layout = file === undefined ? undefined : layoutFromJson(parseJsonArg(await readFileOrStdin(file), file), file)
    const dashboard = {name: flags.name, context: flags.context, layout, shared: flags.shared, is_default: flags.default}
    const d = await (await this.client(flags)).call('createDashboard', {body: {dashboard}})
    this.say(`Created dashboard #${d.id} "${d.name}" (context ${d.context}, ${d.layout.length} tiles)`)
    return d
  }
}
