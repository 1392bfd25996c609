import {DEFAULT_APP_ENGINE, sourceFileOf} from '../../engines/index.js'
import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import type {AppView} from '../../core/contract/apps.js'
import {describeApp} from '../../dev/app-flags.js'
import {resolveAppId} from '../../dev/project.js'

export default class AppGet extends BackendCommand {
  static description = 'Show one app (by id or url_code)'
  static examples = ['<%= config.bin %> app get counter', `<%= config.bin %> app get counter --source > ${sourceFileOf(DEFAULT_APP_ENGINE)}`]
  static args = {app: Args.string({description: 'app id or url_code', required: true})}
  static flags = {source: Flags.boolean({description: 'print only the source code'})}

  async run() {
    const {args, flags} = await this.parse(AppGet)
    const client = await this.client(flags)
    const app = await client.call('getApp', {params: {id: await resolveAppId(client, args.app)}})
    if (flags.source) this.say(app.source_code)
    else for (const line of describeApp(app, client.backend.baseUrl)) this.say(line)
    return app
  }
}
