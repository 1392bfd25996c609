import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {SvcError} from '../../core/errors.js'
import type {CronJob} from '../../core/flows/crons.js'
import {idArg} from '../../cli/args.js'

export default class CronUpdate extends BackendCommand {
  static description = 'Change a cron: its flow, schedule, time zone or whether it is active'
  static examples = ['<%= config.bin %> cron update 3 --no-active', '<%= config.bin %> cron update 3 --schedule "0 */2 * * *"']
  static args = {id: idArg({name: 'ID', description: 'cron id', listedBy: 'svc cron list'})}
  static flags = {
    flow: Flags.string({description: 'code of the flow to run'}),
    schedule: Flags.string({description: 'cron expression'}),
    timezone: Flags.string({description: 'IANA time zone ("" for the server\'s)'}),
    active: Flags.boolean({description: 'run on schedule', allowNo: true}),
  }

  async run() {
    const {args, flags} = await this.parse(CronUpdate)
    const change = {target_code: flags.flow, schedule: flags.schedule, timezone: flags.timezone, active: flags.active}
    if (Object.values(change).every((v) => v === undefined)) throw new SvcError('usage', 0, 'nothing to change', undefined, 'give --flow, --schedule, --timezone or --active/--no-active')
    const cron = await (await this.client(flags)).call('updateCron', {params: {id: args.id}, body: {cron: change}})
    this.say(`Cron ${cron.id}: ${cron.target_code} at "${cron.schedule}"${cron.active ? `, next run ${cron.next_run_at}` : ' (inactive)'}`)
    return cron
  }
}
