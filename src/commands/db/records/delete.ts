import {Args} from '#oclif'
import {BackendCommand, yesFlag} from '../../../cli/base-command.js'
import {confirmDestructive} from '../../../cli/confirm.js'
import {readTagged, unlessChanged} from '../../../cli/if-match.js'
import {idArg} from '../../../cli/args.js'
import {dbId} from '../../../client/refs.js'

export default class DbRecordsDelete extends BackendCommand {
  static description = 'Delete a record; asks first (--yes without a terminal)'
  static examples = ['<%= config.bin %> db records delete books 12', '<%= config.bin %> db records delete books 12 --yes']
  static args = {
    db: Args.string({description: 'database id, code or name', required: true}),
    id: idArg({name: 'ID', description: 'record id', listedBy: 'svc db records list DB'}),
  }
  static flags = {yes: yesFlag}

  async run() {
    const {args, flags} = await this.parse(DbRecordsDelete)
    const client = await this.client(flags)
    const params = {db_id: await dbId(client, args.db), id: args.id}
    const {ifMatch} = await readTagged(client, 'getRecord', {params})
    if (!(await confirmDestructive({yes: flags.yes, action: `delete record ${args.id} of ${args.db}`, message: `Delete record ${args.id} of ${args.db}?`}))) {
      this.say('Nothing deleted.')
      return {id: args.id, deleted: false}
    }
    // If-Match: the record deleted is the version read before the question; a change made meanwhile stops it.
    await unlessChanged(`record ${args.id} of ${args.db}`, 'db records delete', () => client.call('deleteRecord', {params, headers: ifMatch}), 'nothing was deleted')
    this.say(`Deleted record ${args.id}`)
    return {id: args.id, deleted: true}
  }
}
