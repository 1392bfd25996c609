import {Args} from '#oclif'
import {BackendCommand, yesFlag} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import type {AppView} from '../../core/contract/apps.js'
import {resolveAppId} from '../../dev/project.js'

export default class AppDelete extends BackendCommand {
  static description = 'Delete an app; asks first (--yes without a terminal)'
  static examples = ['<%= config.bin %> app delete counter', '<%= config.bin %> app delete counter --yes']
  static args = {app: Args.string({description: 'app id or url_code', required: true})}
  static flags = {yes: yesFlag}

  async run() {
    const {args, flags} = await this.parse(AppDelete)
    const client = await this.client(flags)
    const id = await resolveAppId(client, args.app)
    const app = await client.call('getApp', {params: {id}})
    const what = `app ${app.url_code} (${app.name})`
    if (!(await confirmDestructive({yes: flags.yes, action: `delete ${what}`, message: `Delete ${what}? /a/${app.url_code} stops working.`}))) {
      this.say('Nothing deleted.')
      return {id, deleted: false}
    }
    await client.call('deleteApp', {params: {id}})
    this.say(`Deleted ${what}`)
    return {id, deleted: true}
  }
}
