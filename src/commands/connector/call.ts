import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {jsonObjectInput} from '../../cli/args.js'
import {parsePairs} from '../../cli/read-input.js'

export default class ConnectorCall extends BackendCommand {
  static description = 'Call a connector method through the server (the secret stays on the server)'
  static examples = [
    '<%= config.bin %> connector call weather current --param city=Oslo',
    `<%= config.bin %> connector call crm create_lead '{"name":"Ann"}'`,
  ]
  static args = {
    code: Args.string({description: 'connector code', required: true}),
    method: Args.string({description: 'method name', required: true}),
    data: Args.string({description: 'parameters as a JSON object (merged with --param)'}),
  }
  static flags = {
    param: Flags.string({description: 'a parameter key=value (repeatable)', multiple: true}),
    'data-json': Flags.string({description: 'the same as the DATA argument (the older spelling)'}),
  }

  async run() {
    const {args, flags} = await this.parse(ConnectorCall)
    const params = {...jsonObjectInput(args.data, flags['data-json']), ...parsePairs(flags.param, '--param')}
    const result = await (await this.client(flags)).call('callConnectorPost', {params: {code: args.code, method: args.method}, body: params})
    this.say(JSON.stringify(result, null, 2))
    return result
  }
}
