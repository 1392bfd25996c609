import {Args} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {table} from '../../cli/table.js'

interface SystemPrompt {code: string; kind: string; name: string; placeholder: string | null; source: string}

export default class PromptSystem extends BackendCommand {
  static description = 'Print a system prompt file (bypassing the database), or list them without CODE'
  static examples = ['<%= config.bin %> prompt system', '<%= config.bin %> prompt system main_dashboard']
  static args = {code: Args.string({description: 'prompt code'})}

  async run(): Promise<SystemPrompt[] | {code: string; content: string}> {
    const {args, flags} = await this.parse(PromptSystem)
    const client = await this.client(flags)
    if (args.code === undefined) {
      const list = await client.call('listSystemPrompts')
      this.say(table(['code', 'kind', 'name', 'source'], list.map((p) => [p.code, p.kind, p.name, p.source])))
      return list
    }
    const content = await client.call('getSystemPrompt', {params: {code: args.code}})
    if (!this.jsonEnabled()) process.stdout.write(content)
    return {code: args.code, content}
  }
}
