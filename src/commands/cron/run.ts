import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import type {FlowProcess} from '../../core/flows/processes.js'
import {processLines, waitForProcess} from '../flow/show.js'
import {idArg} from '../../cli/args.js'

export default class CronRun extends BackendCommand {
  static description = 'Run a cron now (its flow with input {kind: "cron", cron_id}) and wait for the run'
  static examples = ['<%= config.bin %> cron run 3', '<%= config.bin %> cron run 3 --no-wait --json']
  static args = {id: idArg({name: 'ID', description: 'cron id', listedBy: 'svc cron list'})}
  static flags = {
    wait: Flags.boolean({description: 'wait until the run ends', default: true, allowNo: true}),
    timeout: Flags.integer({description: 'seconds to wait at most', default: 120, min: 1}),
  }

  async run() {
    const {args, flags} = await this.parse(CronRun)
    const client = await this.client(flags)
    let run = await client.call('runCron', {params: {id: args.id}})
    if (flags.wait) run = await waitForProcess(client, run, flags.timeout)
    for (const line of processLines(run)) this.say(line)
    if (run.status === 'error') process.exitCode = 1
    return run
  }
}
