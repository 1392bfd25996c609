import {Args, Flags} from '#oclif'
import {setModule} from '../../../admin/local-admin.js'
import {AdminCommand} from '../../../cli/admin-command.js'

export default class AdminModuleDisable extends AdminCommand {
  static description = 'Disable a module (crm, cms, toolkit, ...) for an account of a local data dir'
  static examples = ['<%= config.bin %> admin module disable crm --data ./.svc', '<%= config.bin %> admin module disable crm --account 2']
  static args = {module: Args.string({description: 'module name', required: true})}
  static flags = {account: Flags.integer({description: 'account id (default: the first account)'})}

  async run() {
    const {args, flags} = await this.parse(AdminModuleDisable)
    const result = await setModule(this.target(flags, {existing: true}), args.module, false, flags.account)
    this.say(`Modules of account ${result.account_id}: ${result.value.join(', ') || '(none)'}`)
    return result
  }
}
