import {Args} from '@oclif/core'
import {BackendCommand} from '../../cli/base-command.js'
import type {PromptView} from '../../core/prompts/types.js'
import {noChanges, promptBody, promptFlags} from './create.js'

export default class PromptUpdate extends BackendCommand {
  static description = 'Change fields of a stored prompt (only the flags given are sent)'
  static examples = ['<%= config.bin %> prompt update 0190c3e4-... --content-file crm.md --kind agent']
  static args = {id: Args.string({description: 'prompt id (UUID)', required: true})}
  static flags = promptFlags

  async run(): Promise<PromptView> {
    const {args, flags} = await this.parse(PromptUpdate)
    const body = await promptBody(flags)
    if (Object.keys(body).length === 0) throw noChanges()
    const updated = await (await this.client(flags)).call('updatePrompt', {params: {id: args.id}, body: {prompt: body}})
    this.say(`Updated prompt ${updated.code} (${updated.id})`)
    return updated
  }
}
