import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {parsePairs} from '../../cli/read-input.js'
import type {Client} from '../../client/backend.js'
import {dbId, findDb} from '../../client/refs.js'
import {searchedFields, searchedNote} from '../../core/dbs/search-note.js'

export default class DbSearch extends BackendCommand {
  static description = 'Search records: fragment or wildcard text, exact or pattern filters, sort, fields'
  static examples = ['<%= config.bin %> db search contacts --q smi --filter city=Berlin --sort -age --fields name,age']
  static args = {db: Args.string({description: 'database id, code or name', required: true})}
  static flags = {
    q: Flags.string({description: 'text; * and % are wildcards, otherwise a fragment. Looks in the indexed fields (else the fields the schema declares, else the whole record); --search-in names others'}),
    filter: Flags.string({description: 'field=value (exact; * or % make a pattern)', multiple: true}),
    'search-in': Flags.string({description: 'comma-separated fields --q looks in instead of the indexed ones'}),
    table: Flags.string({description: 'table name (multi-table databases)'}),
    sort: Flags.string({description: 'field, - for descending'}),
    fields: Flags.string({description: 'comma-separated fields to return'}),
    limit: Flags.integer({description: '1-100', default: 20}),
    offset: Flags.integer({description: 'skip this many', default: 0}),
  }

  async run() {
    const {args, flags} = await this.parse(DbSearch)
    const query: Record<string, string | number | undefined> = {
      q: flags.q, search_in: flags['search-in'], table_name: flags.table, sort: flags.sort, fields: flags.fields, limit: flags.limit, offset: flags.offset,
    }
    for (const [k, v] of Object.entries(parsePairs(flags.filter, '--filter'))) query[`filter[${k}]`] = v
    const client = await this.client(flags)
    const rows = await client.call('searchRecords', {params: {db_id: await dbId(client, args.db)}, query})
    for (const row of rows) this.say(JSON.stringify(row))
    if (rows.length === 0) this.note(flags.offset ? `No more records (offset ${flags.offset}).` : `No records match.${flags.q && !flags['search-in'] ? ` ${await this.searched(client, args.db, flags.table)}` : ''}`)
    return rows
  }

  /** Which fields an empty `--q` search looked in, and how to look in others. */
  private async searched(client: Client, ref: string, table: string | undefined): Promise<string> {
    const db = await findDb(client, ref)
    return searchedNote(searchedFields(db.schema, table ?? null), {q: '--q', searchIn: '--search-in', join: ' '})
  }
}
