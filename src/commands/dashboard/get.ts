import {Args} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {table} from '../../cli/table.js'
import {type DashboardView, kindOf, tileName} from '../../core/dashboards/format.js'
import {configLines} from '../../core/dashboards/grid.js'
import {dashboardId} from '../../client/refs.js'

export default class DashboardGet extends BackendCommand {
  static description = 'Show one dashboard and its layout'
  static examples = ['<%= config.bin %> dashboard get 4', '<%= config.bin %> dashboard get Sales --json']
  static args = {id: Args.string({description: 'dashboard id or name', required: true})}

  async run() {
    const {args, flags} = await this.parse(DashboardGet)
    const client = await this.client(flags)
    const d = await client.call('getDashboard', {params: {id: await dashboardId(client, args.id)}})
    this.say(`#${d.id} ${d.name} (context ${d.context}, ${kindOf(d)}${d.editable ? ', editable' : ''}), updated ${d.updated_at}`)
    this.say(table(['id', 'tile', 'key', 'size', 'config'], d.layout.map((i) => [i.id, tileName(i.key), i.key, i.size, configLines(i.config).join('; ')])))
    return d
  }
}
