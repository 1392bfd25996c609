import {Args} from '@oclif/core'
import {BackendCommand} from '../../cli/base-command.js'
import type {PromptView} from '../../core/prompts/types.js'

export default class PromptGet extends BackendCommand {
  static description = 'Show one stored prompt'
  static args = {id: Args.string({description: 'prompt id (UUID)', required: true})}

  async run(): Promise<PromptView> {
    const {args, flags} = await this.parse(PromptGet)
    const p = await (await this.client(flags)).call('getPrompt', {params: {id: args.id}})
    this.say(`${p.name} (${p.code})`)
    this.say(`id: ${p.id}`)
    this.say(`kind: ${p.kind}, scope: ${p.scope}${p.scope_id === null ? '' : ` ${p.scope_id}`}, created by: ${p.created_by_id ?? '-'}`)
    if (p.ai_placeholder) this.say(`placeholder: ${p.ai_placeholder}`)
    this.say(`updated: ${p.updated_at}`)
    this.say('')
    this.say(p.content)
    return p
  }
}
