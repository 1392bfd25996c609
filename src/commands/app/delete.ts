import {Args} from '@oclif/core'
import {BackendCommand} from '../../cli/base-command.js'
import {resolveAppId} from '../../dev/project.js'

export default class AppDelete extends BackendCommand {
  static description = 'Delete an app'
  static args = {app: Args.string({description: 'app id or url_code', required: true})}

  async run() {
    const {args, flags} = await this.parse(AppDelete)
    const client = await this.client(flags)
    const id = await resolveAppId(client, args.app)
    await client.call('deleteApp', {params: {id}})
    this.say(`deleted ${id}`)
    return {id, deleted: true}
  }
}
