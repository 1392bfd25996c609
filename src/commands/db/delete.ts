import {Args} from '#oclif'
import {BackendCommand, yesFlag} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import {readTagged, unlessChanged} from '../../cli/if-match.js'
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
    // Read again by id for its ETag (findDb may have found it in the list, which answers no tag).
    const {value: db, ifMatch} = await readTagged(client, 'getDb', {params: {id: (await findDb(client, args.db)).id}})
    const what = `database ${db.code ?? db.id} (${db.name})`
    const records = db.records_count === 1 ? '1 record' : `${db.records_count} records`
    if (!(await confirmDestructive({yes: flags.yes, action: `delete ${what}`, message: `Delete ${what} and its ${records}?`}))) {
      this.say('Nothing deleted.')
      return {deleted: false, id: db.id, code: db.code, records: db.records_count}
    }
    // If-Match: what is deleted is the definition shown (and confirmed); a change made meanwhile stops it.
    await unlessChanged(what, 'db delete', () => client.call('deleteDb', {params: {id: db.id}, headers: ifMatch}), 'nothing was deleted')
    this.say(`Deleted ${what} and its ${records}`)
    return {deleted: true, id: db.id, code: db.code, records: db.records_count}
  }
}
