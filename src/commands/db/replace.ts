import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {readTagged, unlessChanged} from '../../cli/if-match.js'
import type {DbView} from '../../core/contract/dbs.js'
import {dbId} from '../../client/refs.js'

export default class DbReplace extends BackendCommand {
  static description = 'Replace a string inside a database\'s schema, public_methods or fields (JSON as `svc db get` shows it)'
  static examples = [`<%= config.bin %> db replace contacts --field schema --old '"age": "integer"' --new '"age": "number"'`]
  static args = {db: Args.string({description: 'database id, code or name', required: true})}
  static flags = {
    field: Flags.string({description: 'member to edit', options: ['schema', 'public_methods', 'fields'], required: true}),
    old: Flags.string({description: 'text to find', required: true}),
    new: Flags.string({description: 'replacement text', required: true}),
    all: Flags.boolean({description: 'replace every occurrence', default: false}),
  }

  async run() {
    const {args, flags} = await this.parse(DbReplace)
    const client = await this.client(flags)
    const id = await dbId(client, args.db)
    // The replace applies to the version read here (If-Match): a change made meanwhile is not written over.
    const {value: read, ifMatch} = await readTagged(client, 'getDb', {params: {id}})
    const db = await unlessChanged(`database ${read.code ?? read.id}`, 'db replace', () => client.call('replaceInDb', {params: {id}, headers: ifMatch,
      body: {field: flags.field, old_string: flags.old, new_string: flags.new, replace_all: flags.all}}))
    this.say(JSON.stringify(flags.field === 'schema' ? db.schema : db[flags.field as 'public_methods' | 'fields'], null, 2))
    return db
  }
}
