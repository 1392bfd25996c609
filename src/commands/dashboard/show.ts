import {Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {describeCurrent, tileName, type WidgetsView, type WidgetView} from '../../core/dashboards/format.js'
import {configLines, renderGrid} from '../../core/dashboards/grid.js'
import {CONTEXTS} from '../../core/dashboards/tiles.js'

export default class DashboardShow extends BackendCommand {
  static description = 'Draw the dashboard you see in a context as a grid of tiles (quarter, half, three quarters, full row)'
  static examples = ['<%= config.bin %> dashboard show', '<%= config.bin %> dashboard show --context crm --width 120']
  static flags = {
    context: Flags.string({description: 'context (default main)', options: [...CONTEXTS], default: 'main'}),
    width: Flags.integer({description: 'grid width in columns (default: the terminal\'s, else 96)', min: 40, max: 400}),
  }

  async run() {
    const {flags} = await this.parse(DashboardShow)
    const client = await this.client(flags)
    const w = await client.call('getWidgets', {query: {context: flags.context}})
    // App tiles are named after their app.
    const names = new Map<string, string>()
    for (const key of new Set(w.layout.map((i) => i.key).filter((k) => k.startsWith('svc_app:')))) {
      names.set(key, (await client.call('getWidget', {query: {key}})).name)
    }
    const tiles = w.layout.map((i) => ({name: names.get(i.key) ?? tileName(i.key), size: i.size, lines: configLines(i.config)}))
    const title = describeCurrent(w, flags.context)
    this.say(title)
    this.say(tiles.length ? renderGrid(tiles, flags.width ?? (process.stdout.columns || 96)) : '(no tiles)')
    return {context: flags.context, title, ...w}
  }
}
