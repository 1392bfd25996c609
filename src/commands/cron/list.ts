import {BackendCommand} from '../../cli/base-command.js'
import {table} from '../../cli/table.js'
import type {CronJob} from '../../core/flows/crons.js'

export default class CronList extends BackendCommand {
  static description = 'List the crons of the account'
  static examples = ['<%= config.bin %> cron list', '<%= config.bin %> cron list --json']

  async run() {
    const {flags} = await this.parse(CronList)
    const crons = await (await this.client(flags)).call('listCrons')
    this.say(crons.length
      ? table(['id', 'flow', 'schedule', 'active', 'next run', 'last run', 'last process'],
        crons.map((c) => [c.id, c.target_code, c.schedule + (c.timezone ? ` (${c.timezone})` : ''), c.active ? 'yes' : 'no', c.next_run_at, c.last_run_at, c.last_flow_process_id]))
      : 'No crons.')
    return crons
  }
}
