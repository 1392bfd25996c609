import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {jsonObjectInput} from '../../cli/args.js'
import {resolveAppId} from '../../dev/project.js'
import {pollUntilEnded} from '../flow/show.js'

interface ActionReply {
  flow_process_id: string
  status: 'pending' | 'finished' | 'error'
  data?: unknown
  error?: string
}

export default class AppAction extends BackendCommand {
  static description = 'Run a declared action of an app (its flow) and print the result when it finishes'
  static examples = [`<%= config.bin %> app action weather-board weather '{"city":"Oslo"}'`]
  static args = {
    app: Args.string({description: 'app id or url_code', required: true}),
    name: Args.string({description: 'action name', required: true}),
    data: Args.string({description: 'parameters of the action, a JSON object (default {})'}),
  }
  static flags = {
    'data-json': Flags.string({description: 'the same as the DATA argument (the older spelling)'}),
    timeout: Flags.integer({description: 'seconds to wait at most', default: 120, min: 1}),
  }

  async run() {
    const {args, flags} = await this.parse(AppAction)
    const body = jsonObjectInput(args.data, flags['data-json'])
    const client = await this.client(flags)
    const params = {id: await resolveAppId(client, args.app), name: args.name}
    const first = await client.call('runAppAction', {params, body})
    if (first.status === 'pending') this.note(`pending (flow process ${first.flow_process_id}), waiting...`)
    const reply = await pollUntilEnded(() => client.call('getAppActionStatus', {params, query: {flow_process_id: first.flow_process_id}}), first, flags.timeout)
    if (reply.status === 'error') {
      this.note(`Error: ${reply.error}`)
      process.exitCode = 1
    } else this.say(JSON.stringify(reply.data, null, 2))
    return reply
  }
}
