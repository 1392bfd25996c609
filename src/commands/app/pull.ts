import {Args} from '@oclif/core'
import {BackendCommand} from '../../cli/base-command.js'
import type {AppView} from '../../core/apps/validate.js'
import {projectOf, resolveAppId, writeProject} from '../../dev/project.js'

export default class AppPull extends BackendCommand {
  static description = 'Write an app into a folder (svc-app.json + source file) for editing, push and dev'
  static args = {
    app: Args.string({description: 'app id or url_code', required: true}),
    dir: Args.string({description: 'folder (default: the url_code)'}),
  }

  async run() {
    const {args, flags} = await this.parse(AppPull)
    const client = await this.client(flags)
    const app = await client.call('getApp', {params: {id: await resolveAppId(client, args.app)}})
    const file = await writeProject(args.dir ?? app.url_code, projectOf(app), app.source_code)
    this.say(`wrote ${file}`)
    return {id: app.id, file}
  }
}
