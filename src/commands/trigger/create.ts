import {Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {DB_CHANGE_OPS, type DbChangeOp} from '../../core/flows/db-triggers.js'

/** `--op create --op update` or `--op create,update`: the ops in the API's order. */
export const opsFlag = Flags.string({
  description: `the changes that start a run: ${DB_CHANGE_OPS.join(', ')} (repeat, or comma-separated; default all)`, multiple: true,
})
export const parseOps = (values: string[] | undefined): DbChangeOp[] | undefined =>
  values === undefined ? undefined : values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean) as DbChangeOp[]
export const describeTrigger = (t: {id: number; db_id: number; table_name: string | null; ops: string[]; target_code: string; active: boolean}) =>
  `db trigger ${t.id}: flow ${t.target_code} on ${t.ops.join(', ')} of db ${t.db_id}${t.table_name ? ` table ${t.table_name}` : ''}${t.active ? '' : ' (inactive)'}`

export default class TriggerCreate extends BackendCommand {
  static description = 'Run a flow on each change of a db (its table, some ops); the change is the run\'s input (docs/flows.md)'
  static examples = [
    '<%= config.bin %> trigger create --db orders --flow notify_shop',
    '<%= config.bin %> trigger create --db orders --table items --op create --op delete --flow notify_shop',
  ]
  static flags = {
    db: Flags.string({description: 'the database (code or id)', required: true}),
    table: Flags.string({description: 'only changes of this table (default: every table)'}),
    op: opsFlag,
    flow: Flags.string({description: 'code of the flow to run', required: true}),
    active: Flags.boolean({description: 'run on changes', default: true, allowNo: true}),
  }

  async run() {
    const {flags} = await this.parse(TriggerCreate)
    const trigger = await (await this.client(flags)).call('createDbTrigger', {body: {db_trigger: {
      kind: 'flow', db_id: /^\d+$/.test(flags.db) ? Number(flags.db) : flags.db, table_name: flags.table ?? null, ops: parseOps(flags.op),
      target_code: flags.flow, active: flags.active,
    }}})
    this.say(`Created ${describeTrigger(trigger)}`)
    return trigger
  }
}
