import {Args} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {table} from '../../cli/table.js'
import type {WidgetView} from '../../core/dashboards/format.js'

const show = (v: string | string[] | null) => (v === null ? '' : Array.isArray(v) ? v.join(', ') || '(none)' : v)

export default class DashboardWidget extends BackendCommand {
  static description = 'A tile\'s name, settings and default config (404 when it is not available to you)'
  static examples = ['<%= config.bin %> dashboard widget kpi', '<%= config.bin %> dashboard widget crm_deals --json']
  static args = {key: Args.string({description: 'tile key (kpi, crm_deals, svc_app:<app id>, ...)', required: true})}

  async run() {
    const {args, flags} = await this.parse(DashboardWidget)
    const w = await (await this.client(flags)).call('getWidget', {query: {key: args.key}})
    this.say(`${w.name} (${w.key})`)
    const rows = Object.entries(w.settings).map(([name, s]) => [
      name, s.text ? 'text' : s.multiple ? 'list' : 'choice', s.options ? s.options.join(', ') : '', show(s.default),
    ])
    this.say(rows.length ? table(['setting', 'type', 'values', 'default'], rows) : 'No settings.')
    return w
  }
}
