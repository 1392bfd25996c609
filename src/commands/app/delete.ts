import {Args} from '#oclif'
import {BackendCommand, yesFlag} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import {readTagged, unlessChanged} from '../../cli/if-match.js'
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
    const {value: app, ifMatch} = await readTagged(client, 'getApp', {params: {id}})
    const what = `app ${app.url_code} (${app.name})`
    if (!(await confirmDestructive({yes: flags.yes, action: `delete ${what}`, message: `Delete ${what}? /a/${app.url_code} stops working.`}))) {
      this.say('Nothing deleted.')
      return {id, deleted: false}
    }
    // If-Match: what is deleted is the version shown (and confirmed); a change made meanwhile stops it.
    await unlessChanged(what, 'app delete', () => client.call('deleteApp', {params: {id}, headers: ifMatch}), 'nothing was deleted')
    this.say(`Deleted ${what}`)
    return {id, deleted: true}
  }
}
