import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../../cli/base-command.js'
import {parseJsonArg} from '../../../cli/read-input.js'
import type {RecordSend, RecordView} from '../../../core/contract/dbs.js'
import {idArg} from '../../../cli/args.js'
import {dbId} from '../../../client/refs.js'

export default class DbRecordsUpdate extends BackendCommand {
  static description = 'Update a record (data is merged; in a multi-table database give --table or the record returns to the null table)'
  static examples = [
    `<%= config.bin %> db records update books 12 '{"title":"Dune"}'`,
    `<%= config.bin %> db records update crm 7 '{"stage":"won"}' --table deals`,
  ]
  static args = {
    db: Args.string({description: 'database id, code or name', required: true}),
    id: idArg({name: 'ID', description: 'record id', listedBy: 'svc db records list DB'}),
    data: Args.string({description: 'data object as JSON', required: true}),
  }
  static flags = {
    table: Flags.string({description: 'table name'}),
  }

  async run() {
    const {args, flags} = await this.parse(DbRecordsUpdate)
    const record = {table_name: flags.table, data: parseJsonArg(args.data, 'DATA')} as RecordSend
    const client = await this.client(flags)
    const updated = await client.call('updateRecord', {params: {db_id: await dbId(client, args.db), id: args.id}, body: {record}})
    this.say(`Updated record ${updated.id}: ${JSON.stringify(updated.data)}`)
    return updated
  }
}
