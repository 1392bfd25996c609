import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../../cli/base-command.js'
import {parseJsonArg} from '../../../cli/read-input.js'
import type {RecordSend, RecordView} from '../../../core/contract/dbs.js'
import {dbId} from '../../../client/refs.js'

export default class DbRecordsCreate extends BackendCommand {
  static description = 'Create a record'
  static examples = [`<%= config.bin %> db records create contacts '{"name":"Ada","age":36}'`]
  static args = {
    db: Args.string({description: 'database id, code or name', required: true}),
    data: Args.string({description: 'data object as JSON', required: true}),
  }
  static flags = {
    table: Flags.string({description: 'table name (required in multi-table databases)'}),
  }

  async run() {
    const {args, flags} = await this.parse(DbRecordsCreate)
    const record = {table_name: flags.table, data: parseJsonArg(args.data, 'DATA')} as RecordSend
    const client = await this.client(flags)
    const created = await client.call('createRecord', {params: {db_id: await dbId(client, args.db)}, body: {record}})
    this.say(`Created record ${created.id}: ${JSON.stringify(created.data)}`)
    return created
  }
}
