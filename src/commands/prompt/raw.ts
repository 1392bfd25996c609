import {Args} from '@oclif/core'
import {BackendCommand} from '../../cli/base-command.js'

export default class PromptRaw extends BackendCommand {
  static description = 'Print the raw content of a stored prompt (Liquid not rendered)'
  static args = {id: Args.string({description: 'prompt id (UUID)', required: true})}

  async run(): Promise<{id: string; content: string}> {
    const {args, flags} = await this.parse(PromptRaw)
    const content = await (await this.client(flags)).call('getPromptContent', {params: {id: args.id}})
    if (!this.jsonEnabled()) process.stdout.write(content)
    return {id: args.id, content}
  }
}
