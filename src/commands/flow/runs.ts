import {Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {table} from '../../cli/table.js'
import {TRIGGERS} from '../../core/flows/processes.js'

export default class FlowRuns extends BackendCommand {
  static description = 'List flow runs (flow processes), newest first'
  static examples = [
    '<%= config.bin %> flow runs', '<%= config.bin %> flow runs --flow heat_check --status error --limit 5',
    '<%= config.bin %> flow runs --trigger db_change --db-trigger 2',
  ]
  static flags = {
    flow: Flags.string({description: 'only runs of this flow code'}),
    status: Flags.string({description: 'only runs with this status', options: ['pending', 'finished', 'error']}),
    trigger: Flags.string({description: 'only runs started this way', options: [...TRIGGERS]}),
    cron: Flags.integer({description: 'only runs of this cron id'}),
    'db-trigger': Flags.integer({description: 'only runs of this db trigger id (svc trigger list)'}),
    limit: Flags.integer({description: 'how many (1-100)', default: 20, min: 1, max: 100}),
    offset: Flags.integer({description: 'skip this many', default: 0, min: 0}),
  }

  async run() {
    const {flags} = await this.parse(FlowRuns)
    const runs = await (await this.client(flags)).call('listFlowProcesses', {query: {flow_code: flags.flow, status: flags.status, trigger: flags.trigger as (typeof TRIGGERS)[number] | undefined, cron_id: flags.cron,
      db_trigger_id: flags['db-trigger'], limit: flags.limit, offset: flags.offset}})
    this.say(runs.length
      ? table(['id', 'flow', 'status', 'trigger', 'started', 'ms', 'error'],
        runs.map((r) => [r.id, r.flow_code, r.status, r.trigger + (r.cron_id ? ` ${r.cron_id}` : r.db_trigger_id ? ` ${r.db_trigger_id}` : ''), r.started_at, r.duration_ms, r.error?.slice(0, 60)]))
      : 'No runs.')
    return runs
  }
}
