import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {SvcError} from '../../core/errors.js'
import {idArg} from '../../cli/args.js'
import {describeTrigger, opsFlag, parseOps} from './create.js'

export default class TriggerUpdate extends BackendCommand {
  static description = 'Change a db trigger: its db, table, ops, flow or whether it is active'
  static examples = ['<%= config.bin %> trigger update 3 --no-active', '<%= config.bin %> trigger update 3 --op update --table ""']
  static args = {id: idArg({name: 'ID', description: 'db trigger id', listedBy: 'svc trigger list'})}
  static flags = {
    db: Flags.string({description: 'the database (code or id)'}),
    table: Flags.string({description: 'only changes of this table ("" for every table)'}),
    op: opsFlag,
    flow: Flags.string({description: 'code of the flow to run'}),
    active: Flags.boolean({description: 'run on changes', allowNo: true}),
  }

  async run() {
    const {args, flags} = await this.parse(TriggerUpdate)
    const change = {
      db_id: flags.db === undefined ? undefined : /^\d+$/.test(flags.db) ? Number(flags.db) : flags.db,
      table_name: flags.table === undefined ? undefined : flags.table || null, ops: parseOps(flags.op), target_code: flags.flow, active: flags.active,
    }
    if (Object.values(change).every((v) => v === undefined)) {
      throw new SvcError('usage', 0, 'nothing to change', undefined, 'give --db, --table, --op, --flow or --active/--no-active')
    }
    const trigger = await (await this.client(flags)).call('updateDbTrigger', {params: {id: args.id}, body: {db_trigger: change}})
    this.say(describeTrigger(trigger))
    return trigger
  }
}
