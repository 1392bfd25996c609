import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {parseJsonArg} from '../../cli/read-input.js'
import {SvcError} from '../../core/errors.js'
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
  static examples = [`<%= config.bin %> app action weather-board weather --data-json '{"city":"Oslo"}'`]
  static args = {
    app: Args.string({description: 'app id or url_code', required: true}),
    name: Args.string({description: 'action name', required: true}),
  }
  static flags = {
    'data-json': Flags.string({description: 'parameters of the action, a JSON object', default: '{}'}),
    timeout: Flags.integer({description: 'seconds to wait at most', default: 120, min: 1}),
  }

  async run() {
    const {args, flags} = await this.parse(AppAction)
    const body = parseJsonArg(flags['data-json'], '--data-json')
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new SvcError('usage', 0, '--data-json must be a JSON object')
    const client = await this.client(flags)
    const params = {id: await resolveAppId(client, args.app), name: args.name}
    const first = await client.call('runAppAction', {params, body: body as Record<string, unknown>})
    if (first.status === 'pending') this.note(`pending (flow process ${first.flow_process_id}), waiting...`)
    const reply = await pollUntilEnded(() => client.call('getAppActionStatus', {params, query: {flow_process_id: first.flow_process_id}}), first, flags.timeout)
    if (reply.status === 'error') {
      this.note(`Error: ${reply.error}`)
      process.exitCode = 1
    } else this.say(JSON.stringify(reply.data, null, 2))
    return reply
  }
}
