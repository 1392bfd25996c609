import {Args} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {readTagged, unlessChanged} from '../../cli/if-match.js'
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
    // --scope-id alone keeps the stored scope: the write then applies to the version read (If-Match).
    let ifMatch: Record<string, string> = {}
    if (body.scope_id !== undefined && body.scope === undefined) {
      const read = await readTagged(client, 'getPrompt', {params: {id}})
      body.scope = read.value.scope
      ifMatch = read.ifMatch
    }
    await resolveScope(client, body)
    const updated = await unlessChanged(`prompt ${args.prompt}`, 'prompt update', () => client.call('updatePrompt', {params: {id}, headers: ifMatch, body: {prompt: body}}))
    this.say(`Updated prompt ${updated.code} (${updated.id})`)
    return updated
  }
}
