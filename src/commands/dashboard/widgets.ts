import {Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {table} from '../../cli/table.js'
import {describeCurrent, kindOf, tileName, type WidgetsView} from '../../core/dashboards/format.js'
import {configLines} from '../../core/dashboards/grid.js'
import {CONTEXTS} from '../../core/dashboards/tiles.js'

export default class DashboardWidgets extends BackendCommand {
  static description = 'The dashboard shown to you in a context: its tiles (those you may see) and the choices'
  static examples = ['<%= config.bin %> dashboard widgets', '<%= config.bin %> dashboard widgets --context crm --json']
  static flags = {context: Flags.string({description: 'context (default main)', options: [...CONTEXTS], default: 'main'})}

  async run() {
    const {flags} = await this.parse(DashboardWidgets)
    const w = await (await this.client(flags)).call('getWidgets', {query: {context: flags.context}})
    this.say(`Showing: ${describeCurrent(w, flags.context)}`)
    this.say(table(['id', 'tile', 'size', 'config'], w.layout.map((i) => [i.id, tileName(i.key), i.size, configLines(i.config).join('; ')])))
    if (w.dashboards.length) this.say(`Choices: ${w.dashboards.map((d) => `#${d.id} ${d.name} (${kindOf(d)})`).join(', ')}`)
    return w
  }
}
