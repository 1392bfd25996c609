import {Args, Flags} from '@oclif/core'
import {setModule} from '../../../client/admin.js'
import {SvcCommand} from '../../../cli/base-command.js'

export default class AdminModuleEnable extends SvcCommand {
  static description = 'Enable a module (crm, cms, toolkit, ...) for an account of a local data dir'
  static args = {module: Args.string({description: 'module name', required: true})}
  static flags = {
    data: Flags.string({description: 'data dir', env: 'SVC_DATA', default: '.svc'}),
    'database-url': Flags.string({description: 'PostgreSQL database (postgres://…) instead of the data dir\'s SQLite file', env: 'SVC_DATABASE_URL'}),
    account: Flags.integer({description: 'account id (default: the first account)'}),
  }

  async run() {
    const {args, flags} = await this.parse(AdminModuleEnable)
    const result = await setModule({dataDir: flags.data, databaseUrl: flags['database-url']?.trim() || undefined}, args.module, true, flags.account)
    this.say(`Modules of account ${result.account_id}: ${result.value.join(', ') || '(none)'}`)
    return result
  }
}
