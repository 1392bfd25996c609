import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {resolvePromptId} from '../../client/refs.js'

export default class PromptRaw extends BackendCommand {
  static description = 'Print the raw content of a stored prompt, by code or id (Liquid not rendered)'
  static examples = ['<%= config.bin %> prompt raw greet', '<%= config.bin %> prompt raw greet > greet.md', '<%= config.bin %> prompt raw greet --scope user']
  static args = {prompt: Args.string({description: 'prompt code or id (UUID)', required: true})}
  static flags = {scope: Flags.string({description: 'the scope to pick when the code is stored in several', options: ['user', 'team', 'department', 'account']})}

  async run(): Promise<{id: string; content: string}> {
    const {args, flags} = await this.parse(PromptRaw)
    const client = await this.client(flags)
    const id = await resolvePromptId(client, args.prompt, flags.scope, '--scope')
    const content = await client.call('getPromptContent', {params: {id}})
    if (!this.jsonEnabled()) process.stdout.write(content)
    return {id, content}
  }
}
