import {Flags} from '@oclif/core'
import {listAccounts} from '../../../client/admin.js'
import {SvcCommand} from '../../../cli/base-command.js'
import {table} from '../../../cli/table.js'

export default class AdminAccountList extends SvcCommand {
  static description = 'List the accounts of a local data dir'
  static flags = {data: Flags.string({description: 'data dir', env: 'SVC_DATA', default: '.svc'})}

  async run() {
    const {flags} = await this.parse(AdminAccountList)
    const accounts = await listAccounts({dataDir: flags.data, databaseUrl: flags['database-url']?.trim() || undefined})
    this.say(table(['id', 'name', 'modules'], accounts.map((a) => [a.id, a.name, a.modules.join(', ')])))
    return accounts
  }
}
