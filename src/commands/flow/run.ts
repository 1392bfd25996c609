import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {jsonObjectInput} from '../../cli/args.js'
import type {FlowProcess} from '../../core/flows/processes.js'
import {flowByCode, processLines, waitForProcess} from './show.js'

export default class FlowRun extends BackendCommand {
  static description = 'Run a flow by hand with an input, wait for it and print the run'
  static examples = [`<%= config.bin %> flow run heat_check '{"city":"Oslo"}'`, '<%= config.bin %> flow run heat_check --no-wait --json']
  static args = {
    code: Args.string({description: 'flow code', required: true}),
    data: Args.string({description: 'input of the run, a JSON object (default {})'}),
  }
  static flags = {
    'data-json': Flags.string({description: 'the same as the DATA argument (the older spelling)'}),
    wait: Flags.boolean({description: 'wait until the run ends', default: true, allowNo: true}),
    timeout: Flags.integer({description: 'seconds to wait at most', default: 120, min: 1}),
  }

  async run() {
    const {args, flags} = await this.parse(FlowRun)
    const input = jsonObjectInput(args.data, flags['data-json'])
    const client = await this.client(flags)
    const flow = await flowByCode(client, args.code)
    let run = await client.call('runFlow', {params: {id: flow.id}, body: {input}})
    if (flags.wait) run = await waitForProcess(client, run, flags.timeout)
    for (const line of processLines(run)) this.say(line)
    if (run.status === 'error') process.exitCode = 1
    return run
  }
}
