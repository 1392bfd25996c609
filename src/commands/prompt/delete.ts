import {Args, Flags} from '#oclif'
import {BackendCommand, yesFlag} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import {readTagged, unlessChanged} from '../../cli/if-match.js'
import {resolvePromptId} from '../../client/refs.js'
import type {PromptView} from '../../core/prompts/types.js'

export default class PromptDelete extends BackendCommand {
  static description = 'Delete a stored prompt, by code or id (a system file with the same code applies again); asks first'
  static examples = ['<%= config.bin %> prompt delete greet', '<%= config.bin %> prompt delete greet --scope user --yes']
  static args = {prompt: Args.string({description: 'prompt code or id (UUID)', required: true})}
  static flags = {
    scope: Flags.string({description: 'the scope to pick when the code is stored in several', options: ['user', 'team', 'department', 'account']}),
    yes: yesFlag,
  }

  async run(): Promise<{id: string; deleted: boolean}> {
    const {args, flags} = await this.parse(PromptDelete)
    const client = await this.client(flags)
    const id = await resolvePromptId(client, args.prompt, flags.scope, '--scope')
    const {value: p, ifMatch} = await readTagged(client, 'getPrompt', {params: {id}})
    const what = `prompt ${p.code} (${p.scope}${p.scope_id === null ? '' : ` ${p.scope_id}`})`
    if (!(await confirmDestructive({yes: flags.yes, action: `delete ${what}`, message: `Delete ${what}?`}))) {
      this.say('Nothing deleted.')
      return {id, deleted: false}
    }
    // If-Match: what is deleted is the version shown (and confirmed); a change made meanwhile stops it.
    await unlessChanged(what, 'prompt delete', () => client.call('deletePrompt', {params: {id}, headers: ifMatch}), 'nothing was deleted')
    this.say(`Deleted prompt ${id}: ${what.slice('prompt '.length)}`)
    return {id, deleted: true}
  }
}
