import {Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {table} from '../../cli/table.js'
import {type DashboardView, kindOf} from '../../core/dashboards/format.js'
import {CONTEXTS} from '../../core/dashboards/tiles.js'

export default class DashboardList extends BackendCommand {
  static description = 'List the dashboards you see (company ones plus your own)'
  static examples = ['<%= config.bin %> dashboard list', '<%= config.bin %> dashboard list --context crm']
  static flags = {context: Flags.string({description: 'only this context', options: [...CONTEXTS]})}

  async run() {
    const {flags} = await this.parse(DashboardList)
    const list = await (await this.client(flags)).call('listDashboards', {query: {context: flags.context}})
    if (list.length === 0) this.say('No dashboards.')
    else {
      this.say(table(['id', 'name', 'context', 'kind', 'editable', 'tiles'],
        list.map((d) => [d.id, d.name, d.context, kindOf(d), d.editable ? 'yes' : 'no', d.layout.length])))
    }
    return list
  }
}
