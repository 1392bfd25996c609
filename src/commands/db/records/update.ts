import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../../cli/base-command.js'
import {parseJsonArg} from '../../../cli/read-input.js'
import type {RecordSend, RecordView} from '../../../core/contract/dbs.js'

export default class DbRecordsUpdate extends BackendCommand {
  static description = 'Update a record (data is merged; in a multi-table database give --table or the record returns to the null table)'
  static args = {
    db: Args.string({description: 'database id or code', required: true}),
    id: Args.integer({description: 'record id', required: true}),
    data: Args.string({description: 'data object as JSON', required: true}),
  }
  static flags = {
    table: Flags.string({description: 'table name'}),
  }

  async run() {
    const {args, flags} = await this.parse(DbRecordsUpdate)
    const record = {table_name: flags.table, data: parseJsonArg(args.data, 'DATA')} as RecordSend
    const updated = await (await this.client(flags)).call('updateRecord', {params: {db_id: args.db, id: args.id}, body: {record}})
    this.say(`Updated record ${updated.id}: ${JSON.stringify(updated.data)}`)
    return updated
  }
}
