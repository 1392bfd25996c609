import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {parseJsonArg} from '../../cli/read-input.js'
import type {DbSend, DbView} from '../../core/contract/dbs.js'

export default class DbCreate extends BackendCommand {
  static description = 'Create a database'
  static examples = [`<%= config.bin %> db create Contacts --code contacts --schema '{"fields":{"name":"string"},"indexed_fields":["name"]}'`]
  static args = {name: Args.string({description: 'database name', required: true})}
  static flags = {
    code: Flags.string({description: 'unique slug (URLs use it)'}),
    schema: Flags.string({description: 'schema as JSON'}),
    'public-methods': Flags.string({description: 'public methods as JSON'}),
    'app-id': Flags.string({description: 'related app (UUID)'}),
  }

  async run() {
    const {args, flags} = await this.parse(DbCreate)
    const db: Record<string, unknown> = {name: args.name}
    if (flags.code !== undefined) db.code = flags.code
    if (flags['app-id'] !== undefined) db.app_id = flags['app-id']
    if (flags.schema !== undefined) db.schema = parseJsonArg(flags.schema, '--schema')
    if (flags['public-methods'] !== undefined) db.public_methods = parseJsonArg(flags['public-methods'], '--public-methods')
    const created = await (await this.client(flags)).call('createDb', {body: {db: db as DbSend}})
    this.say(`Created database ${created.id}${created.code ? ` (${created.code})` : ''}: ${created.name}`)
    return created
  }
}
