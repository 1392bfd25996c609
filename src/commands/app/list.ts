import {DEFAULT_APP_ENGINE} from '../../engines/index.js'
import {Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {table} from '../../cli/table.js'
import type {AppView} from '../../core/contract/apps.js'

export default class AppList extends BackendCommand {
  static description = 'List the apps of the account'
  static examples = ['<%= config.bin %> app list', `<%= config.bin %> app list --q count --engine ${DEFAULT_APP_ENGINE} --json`]
  static flags = {
    q: Flags.string({description: 'search name and url_code'}),
    engine: Flags.string({description: 'only this app engine'}),
  }

  async run() {
    const {flags} = await this.parse(AppList)
    const apps = await (await this.client(flags)).call('listApps', {query: {q: flags.q, app_engine: flags.engine}})
    if (apps.length === 0 && (flags.q || flags.engine)) this.say('No apps match.')
    else if (apps.length === 0) this.say(`No apps yet. Create one: svc app create --template ${DEFAULT_APP_ENGINE} --name "My app"`)
    else this.say(table(['id', 'name', 'url_code', 'engine', 'css', 'public', 'active'],
      apps.map((a) => [a.id, a.name, a.url_code, a.app_engine, a.css_engine, a.public, a.active])))
    return apps
  }
}
