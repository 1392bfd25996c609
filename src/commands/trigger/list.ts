import {BackendCommand} from '../../cli/base-command.js'
import {table} from '../../cli/table.js'

export default class TriggerList extends BackendCommand {
  static description = 'List the triggers that run a flow on db changes (docs/flows.md "Flows on db changes")'
  static examples = ['<%= config.bin %> trigger list', '<%= config.bin %> trigger list --json']

  async run() {
    const {flags} = await this.parse(TriggerList)
    const triggers = await (await this.client(flags)).call('listDbTriggers')
    this.say(triggers.length
      ? table(['id', 'db', 'table', 'ops', 'flow', 'active'],
        triggers.map((t) => [t.id, t.db_id, t.table_name ?? '(every table)', t.ops.join(','), t.target_code, t.active ? 'yes' : 'no']))
      : 'No db triggers.')
    return triggers
  }
}
