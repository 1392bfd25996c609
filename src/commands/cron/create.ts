import {Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import type {CronJob} from '../../core/flows/crons.js'

export default class CronCreate extends BackendCommand {
  static description = 'Create a cron that runs a flow on a schedule (input {kind: "cron", cron_id})'
  static examples = [
    '<%= config.bin %> cron create --flow heat_check --schedule "0 8 * * *"',
    '<%= config.bin %> cron create --flow heat_check --schedule "*/30 * * * * *" --no-active',
  ]
  static flags = {
    flow: Flags.string({description: 'code of the flow to run', required: true}),
    schedule: Flags.string({description: 'cron expression (5 fields, or 6 with seconds first)', required: true}),
    timezone: Flags.string({description: 'IANA time zone of the schedule (default: the server\'s)'}),
    active: Flags.boolean({description: 'run on schedule', default: true, allowNo: true}),
  }

  async run() {
    const {flags} = await this.parse(CronCreate)
    const cron = await (await this.client(flags)).call('createCron', {body: {
      cron: {kind: 'flow', target_code: flags.flow, schedule: flags.schedule, timezone: flags.timezone, active: flags.active},
    }})
    this.say(`Created cron ${cron.id}: ${cron.target_code} at "${cron.schedule}"${cron.active ? `, next run ${cron.next_run_at}` : ' (inactive)'}`)
    return cron
  }
}
