import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../../cli/base-command.js'
import type {RecordView} from '../../../core/contract/dbs.js'
import {dbId} from '../../../client/refs.js'

export default class DbRecordsList extends BackendCommand {
  static description = 'List records of a database, newest first'
  static examples = ['<%= config.bin %> db records list books', '<%= config.bin %> db records list books --sort -created_at --limit 50 --offset 50']
  static args = {db: Args.string({description: 'database id, code or name', required: true})}
  static flags = {
    table: Flags.string({description: 'only this table (multi-table databases)'}),
    sort: Flags.string({description: 'field, - for descending (default -id)'}),
    limit: Flags.integer({description: '1-100', default: 20}),
    offset: Flags.integer({description: 'skip this many', default: 0}),
  }

  async run() {
    const {args, flags} = await this.parse(DbRecordsList)
    const client = await this.client(flags)
    const records = await client.call('listRecords', {params: {db_id: await dbId(client, args.db)}, query: {table_name: flags.table, sort: flags.sort, limit: flags.limit, offset: flags.offset}})
    for (const r of records) this.say(`${r.id}\t${r.table_name ?? '-'}\t${JSON.stringify(r.data)}`)
    if (records.length === 0) this.note(flags.offset ? `No more records (offset ${flags.offset}).` : `No records${flags.table ? ` in table ${flags.table}` : ''}.`)
    return records
  }
}
