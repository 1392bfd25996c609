import {Args} from '#oclif'
import {BackendCommand, yesFlag} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import type {DbView} from '../../core/contract/dbs.js'
import {findDb} from '../../client/refs.js'

export default class DbDelete extends BackendCommand {
  static description = 'Delete a database together with its records; asks first (--yes without a terminal)'
  static examples = ['<%= config.bin %> db delete tmp', '<%= config.bin %> db delete tmp --yes']
  static args = {db: Args.string({description: 'database id, code or name', required: true})}
  static flags = {yes: yesFlag}

  async run() {
    const {args, flags} = await this.parse(DbDelete)
    const client = await this.client(flags)
    const db = await findDb(client, args.db)
    const what = `database ${db.code ?? db.id} (${db.name})`
    const records = db.records_count === 1 ? '1 record' : `${db.records_count} records`
    if (!(await confirmDestructive({yes: flags.yes, action: `delete ${what}`, message: `Delete ${what} and its ${records}?`}))) {
      this.say('Nothing deleted.')
      return {deleted: false, id: db.id, code: db.code, records: db.records_count}
    }
    await client.call('deleteDb', {params: {id: db.id}})
    this.say(`Deleted ${what} and its ${records}`)
    return {deleted: true, id: db.id, code: db.code, records: db.records_count}
  }
}
