import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {SvcError} from '../../core/errors.js'
import type {Resource} from '../../core/flows/resources.js'

/** `--method "current GET /weather/{city} public"` → a method object. */
function parseMethod(spec: string): Record<string, unknown> {
  const [name, httpMethod, path, flag, ...rest] = spec.trim().split(/\s+/)
  if (!name || !httpMethod || !path || rest.length || (flag !== undefined && flag !== 'public')) {
    throw new SvcError('usage', 0, `--method takes "NAME HTTP_METHOD /path [public]", got "${spec}"`)
  }
  return {name, http_method: httpMethod.toUpperCase(), path, public: flag === 'public'}
}

export default class ConnectorCreate extends BackendCommand {
  static description = 'Create a custom connector: a base URL, a write-only secret token and named methods'
  static examples = [
    '<%= config.bin %> connector create weather --base-url https://api.example.com/v1 --secret-token "$API_KEY" --method "current GET /weather/{city}"',
    '<%= config.bin %> connector create weather --base-url http://127.0.0.1:8080 --method "current GET /weather/{city} public"',
  ]
  static args = {code: Args.string({description: 'connector code (unique on the server)', required: true})}
  static flags = {
    'base-url': Flags.string({description: 'base address of the API (the connector\'s url)', required: true}),
    name: Flags.string({description: 'display name (default: the code)'}),
    'secret-token': Flags.string({description: 'API key sent as "Authorization: Bearer" (never shown again)', env: 'SVC_CONNECTOR_SECRET_TOKEN'}),
    method: Flags.string({description: 'a method: "NAME HTTP_METHOD /path/{param} [public]" (repeatable)', multiple: true}),
  }

  async run() {
    const {args, flags} = await this.parse(ConnectorCreate)
    const methods = (flags.method ?? []).map(parseMethod)
    const connector = await (await this.client(flags)).call('createResource', {body: {
      resource: {kind: 'svc/custom_connector', code: args.code, name: flags.name, url: flags['base-url'], secret_token: flags['secret-token'], fields: {methods}},
    }})
    this.say(`Created connector ${connector.code} (id ${connector.id}, ${methods.length} methods, secret ${connector.has_secret_token ? 'set' : 'not set'})`)
    return connector
  }
}
