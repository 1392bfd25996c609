import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {parseJsonArg, parsePairs} from '../../cli/read-input.js'

export default class DbCall extends BackendCommand {
  static description = 'Call a public method of a database (as a visitor; {user_id} is the user of the backend)'
  static examples = [
    `<%= config.bin %> db call guestbook create '{"text":"hi"}'`,
    '<%= config.bin %> db call guestbook search --param q=hi --param limit=5',
  ]
  static args = {
    code: Args.string({description: 'database code', required: true}),
    method: Args.string({description: 'list, get, create, update, delete or search', required: true}),
    data: Args.string({description: 'data object as JSON (create, update)'}),
  }
  static flags = {
    id: Flags.integer({description: 'record id (get, update, delete)'}),
    param: Flags.string({description: 'key=value parameter (q, limit, offset, sort, table_name)', multiple: true}),
  }

  async run() {
    const {args, flags} = await this.parse(DbCall)
    const body: Record<string, unknown> = {...parsePairs(flags.param, '--param')}
    if (flags.id !== undefined) body.id = flags.id
    if (args.data !== undefined) body.data = parseJsonArg(args.data, 'DATA')
    const client = await this.client(flags)
    const result = await client.call('callPublicMethodPost', {params: {db_code: args.code, method_name: args.method}, body})
    this.say(JSON.stringify(result, null, 2))
    return result
  }
}
