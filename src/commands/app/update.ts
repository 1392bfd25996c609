import {DEFAULT_APP_ENGINE, sourceFileOf} from '../../engines/index.js'
import {Args} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import type {AppView} from '../../core/contract/apps.js'
import {SvcError} from '../../core/errors.js'
import {appBody, appFieldFlags, describeApp} from '../../dev/app-flags.js'
import {resolveAppId} from '../../dev/project.js'

export default class AppUpdate extends BackendCommand {
  static description = 'Change fields of an app (only the flags given); a new source is compiled'
  static examples = ['<%= config.bin %> app update counter --name "Counter 2" --public', `<%= config.bin %> app update counter --file ${sourceFileOf(DEFAULT_APP_ENGINE)}`]
  static args = {app: Args.string({description: 'app id or url_code', required: true})}
  static flags = {...appFieldFlags}

  async run() {
    const {args, flags} = await this.parse(AppUpdate)
    const app = await appBody(flags)
    if (Object.keys(app).length === 0) throw new SvcError('usage', 0, 'nothing to change', undefined, 'see svc app update --help')
    const client = await this.client(flags)
    const updated = await client.call('updateApp', {params: {id: await resolveAppId(client, args.app)}, body: {app}})
    for (const line of describeApp(updated, client.backend.baseUrl)) this.say(line)
    return updated
  }
}
