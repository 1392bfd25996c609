import {Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {table} from '../../cli/table.js'
import type {Resource} from '../../core/flows/resources.js'

export default class FlowList extends BackendCommand {
  static description = 'List the flows (svc/custom_flow resources) of the account'
  static examples = ['<%= config.bin %> flow list', '<%= config.bin %> flow list --q heat']
  static flags = {q: Flags.string({description: 'fragment of the name or code'})}

  async run() {
    const {flags} = await this.parse(FlowList)
    const flows = await (await this.client(flags)).call('listResources', {query: {kind: 'svc/custom_flow', q: flags.q}})
    const steps = (f: Resource) => (Array.isArray(f.fields.program) ? f.fields.program.length : 0)
    this.say(flows.length ? table(['id', 'code', 'name', 'steps', 'updated'], flows.map((f) => [f.id, f.code, f.name, steps(f), f.updated_at])) : 'No flows.')
    return flows
  }
}
