import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {readTagged, unlessChanged} from '../../cli/if-match.js'
import type {AppView} from '../../core/contract/apps.js'
import {describeApp} from '../../dev/app-flags.js'
import {resolveAppId} from '../../dev/project.js'

export default class AppReplace extends BackendCommand {
  static description = 'Replace a string in source_code, fields or prompt (source is recompiled)'
  static examples = ['<%= config.bin %> app replace counter --old "Clicked" --new "Pressed"']
  static args = {app: Args.string({description: 'app id or url_code', required: true})}
  static flags = {
    field: Flags.string({description: 'field to edit', options: ['source_code', 'fields', 'prompt'], default: 'source_code'}),
    old: Flags.string({description: 'text to find (must match once, unless --all)', required: true}),
    new: Flags.string({description: 'replacement text', required: true}),
    all: Flags.boolean({description: 'replace every occurrence (replace_all)', default: false}),
  }

  async run() {
    const {args, flags} = await this.parse(AppReplace)
    const client = await this.client(flags)
    const id = await resolveAppId(client, args.app)
    // The replace applies to the version read here (If-Match): an edit made meanwhile is not written over.
    const {value: read, ifMatch} = await readTagged(client, 'getApp', {params: {id}})
    const app = await unlessChanged(`app ${read.url_code}`, 'app replace', () => client.call('replaceInApp', {params: {id}, headers: ifMatch, body: {
      field: flags.field, old_string: flags.old, new_string: flags.new, replace_all: flags.all,
    }}))
    for (const line of describeApp(app, client.backend.baseUrl)) this.say(line)
    return app
  }
}
