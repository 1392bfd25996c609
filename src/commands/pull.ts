import {Flags} from '@oclif/core'
import {BackendCommand} from '../cli/base-command.js'
import {remoteResources} from '../workspace/backend.js'
import {writeResources} from '../workspace/folder.js'

export default class Pull extends BackendCommand {
  static description = "Write the backend's workspace (prompts, dbs, apps, dashboards, flows, connectors) into a folder"
  static examples = ['<%= config.bin %> pull --dir ./workspace', '<%= config.bin %> pull --prune']
  static flags = {
    dir: Flags.string({char: 'd', description: 'workspace folder', default: '.'}),
    prune: Flags.boolean({description: 'also remove files of resources the backend no longer has', default: false}),
  }

  async run() {
    const {flags} = await this.parse(Pull)
    const resources = await remoteResources(await this.client(flags))
    const {written, removed} = await writeResources(flags.dir, resources, {prune: flags.prune})
    for (const path of written) this.say(`wrote ${path}`)
    for (const path of removed) this.say(`removed ${path}`)
    this.say(`${resources.length} resource(s); ${written.length} file(s) written, ${removed.length} removed`)
    return {resources: resources.length, written, removed}
  }
}
