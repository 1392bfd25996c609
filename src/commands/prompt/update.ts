import {Args} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {resolvePromptId} from '../../client/refs.js'
import type {PromptView} from '../../core/prompts/types.js'
import {noChanges, promptBody, promptFlags, resolveScope} from './create.js'

export default class PromptUpdate extends BackendCommand {
  static description = 'Change fields of a stored prompt, by code or id (only the flags given are sent)'
  static examples = ['<%= config.bin %> prompt update greet --content-file greet.md --kind agent', '<%= config.bin %> prompt update 0190c3e4-... --scope team --scope-id sales']
  static args = {prompt: Args.string({description: 'prompt code or id (UUID)', required: true})}
  static flags = promptFlags

  async run(): Promise<PromptView> {
    const {args, flags} = await this.parse(PromptUpdate)
    const body = await promptBody(flags)
    if (Object.keys(body).length === 0) throw noChanges()
    const client = await this.client(flags)
    const id = await resolvePromptId(client, args.prompt)
    if (body.scope_id !== undefined && body.scope === undefined) body.scope = (await client.call('getPrompt', {params: {id}})).scope
    await resolveScope(client, body)
    const updated = await client.call('updatePrompt', {params: {id}, body: {prompt: body}})
    this.say(`Updated prompt ${updated.code} (${updated.id})`)
    return updated
  }
}
