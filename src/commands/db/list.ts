import {BackendCommand} from '../../cli/base-command.js'
import {table} from '../../cli/table.js'
import type {DbView} from '../../core/contract/dbs.js'

export default class DbList extends BackendCommand {
  static description = 'List the JSON databases of the account'
  static examples = ['<%= config.bin %> db list', '<%= config.bin %> db list --json']

  async run() {
    const {flags} = await this.parse(DbList)
    const dbs = await (await this.client(flags)).call('listDbs')
    if (dbs.length === 0) this.say('No databases.')
    else this.say(table(['id', 'code', 'name', 'records', 'public methods'],
      dbs.map((d) => [d.id, d.code, d.name, d.records_count, Object.keys(d.public_methods).filter((m) => d.public_methods[m] !== false).join(', ')])))
    return dbs
  }
}
