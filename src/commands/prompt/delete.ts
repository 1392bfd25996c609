import {Args} from '@oclif/core'
import {BackendCommand} from '../../cli/base-command.js'

export default class PromptDelete extends BackendCommand {
  static description = 'Delete a stored prompt (a system file with the same code applies again)'
  static args = {id: Args.string({description: 'prompt id (UUID)', required: true})}

  async run(): Promise<{id: string; deleted: true}> {
    const {args, flags} = await this.parse(PromptDelete)
    await (await this.client(flags)).call('deletePrompt', {params: {id: args.id}})
    this.say(`Deleted prompt ${args.id}`)
    return {id: args.id, deleted: true}
  }
}
