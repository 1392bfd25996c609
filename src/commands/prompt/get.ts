import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {resolvePromptId} from '../../client/refs.js'
import type {PromptView} from '../../core/prompts/types.js'

export default class PromptGet extends BackendCommand {
  static description = 'Show one stored prompt, by code or id'
  static examples = ['<%= config.bin %> prompt get greet', '<%= config.bin %> prompt get greet --scope user']
  static args = {prompt: Args.string({description: 'prompt code or id (UUID)', required: true})}
  static flags = {scope: Flags.string({description: 'the scope to pick when the code is stored in several', options: ['user', 'team', 'department', 'account']})}

  async run(): Promise<PromptView> {
    const {args, flags} = await this.parse(PromptGet)
    const client = await this.client(flags)
    const p = await client.call('getPrompt', {params: {id: await resolvePromptId(client, args.prompt, flags.scope, '--scope')}})
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
