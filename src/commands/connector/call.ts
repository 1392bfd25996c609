import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {parseJsonArg, parsePairs} from '../../cli/read-input.js'
import {SvcError} from '../../core/errors.js'

export default class ConnectorCall extends BackendCommand {
  static description = 'Call a connector method through the server (the secret stays on the server)'
  static examples = [
    '<%= config.bin %> connector call weather current --param city=Oslo',
    `<%= config.bin %> connector call crm create_lead --data-json '{"name":"Ann"}'`,
  ]
  static args = {
    code: Args.string({description: 'connector code', required: true}),
    method: Args.string({description: 'method name', required: true}),
  }
  static flags = {
    param: Flags.string({description: 'a parameter key=value (repeatable)', multiple: true}),
    'data-json': Flags.string({description: 'parameters as a JSON object (merged with --param)'}),
  }

  async run() {
    const {args, flags} = await this.parse(ConnectorCall)
    const data = flags['data-json'] === undefined ? {} : parseJsonArg(flags['data-json'], '--data-json')
    if (!data || typeof data !== 'object' || Array.isArray(data)) throw new SvcError('usage', 0, '--data-json must be a JSON object')
    const params = {...(data as Record<string, unknown>), ...parsePairs(flags.param, '--param')}
    const result = await (await this.client(flags)).call('callConnectorPost', {params: {code: args.code, method: args.method}, body: params})
    this.say(JSON.stringify(result, null, 2))
    return result
  }
}
