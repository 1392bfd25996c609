import {spawn} from 'node:child_process'
import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {interactive} from '../../cli/read-input.js'
import type {AppView} from '../../core/contract/apps.js'
import {resolveAppId} from '../../dev/project.js'

export default class AppOpen extends BackendCommand {
  static description = 'Print the public URL of an app and open it in a browser'
  static examples = ['<%= config.bin %> app open counter', '<%= config.bin %> app open counter --no-browser']
  static args = {app: Args.string({description: 'app id or url_code', required: true})}
  static flags = {browser: Flags.boolean({description: 'open a browser (default when run at a terminal)', allowNo: true})}

  async run() {
    const {args, flags} = await this.parse(AppOpen)
    const client = await this.client(flags)
    const app = await client.call('getApp', {params: {id: await resolveAppId(client, args.app)}})
    const url = `${client.backend.baseUrl}/a/${app.url_code}`
    this.say(url)
    if (client.backend.kind === 'embedded') {
      this.note('this is a local data dir: start `svc serve` to reach the URL, or use `svc app dev`')
    } else if (flags.browser ?? (interactive() && !this.jsonEnabled())) {
      const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open'
      spawn(opener, [url], {detached: true, stdio: 'ignore'}).on('error', () => this.note(`could not start ${opener}`)).unref()
    }
    return {id: app.id, url}
  }
}
