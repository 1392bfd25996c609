import {Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {table} from '../../cli/table.js'
import type {PromptView} from '../../core/prompts/types.js'

export default class PromptList extends BackendCommand {
  static description = 'List the stored prompts you can see (system files excluded)'
  static examples = ['<%= config.bin %> prompt list --q crm --kind agent --order-by updated_at_desc']
  static flags = {
    q: Flags.string({description: 'search name and code'}),
    code: Flags.string({description: 'exact code'}),
    kind: Flags.string({description: 'exact kind', options: ['chat', 'agent']}),
    scope: Flags.string({description: 'exact scope', options: ['user', 'team', 'department', 'account']}),
    'order-by': Flags.string({description: 'id, created_at, updated_at, name or code; suffix _desc reverses'}),
  }

  async run(): Promise<PromptView[]> {
    const {flags} = await this.parse(PromptList)
    const prompts = await (await this.client(flags)).call('listPrompts', {query: {q: flags.q, code: flags.code, kind: flags.kind, scope: flags.scope, order_by: flags['order-by']}})
    if (prompts.length === 0) this.say(flags.q || flags.code || flags.kind || flags.scope ? 'No prompts match.' : 'No prompts.')
    else this.say(table(['id', 'code', 'name', 'kind', 'scope', 'scope_id'], prompts.map((p) => [p.id, p.code, p.name, p.kind, p.scope, p.scope_id])))
    return prompts
  }
}
