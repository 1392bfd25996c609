import {listAccounts} from '../../../admin/local-admin.js'
import {AdminCommand} from '../../../cli/admin-command.js'
import {table} from '../../../cli/table.js'

export default class AdminAccountList extends AdminCommand {
  static description = 'List the accounts of a local data dir'
  static examples = ['<%= config.bin %> admin account list --data ./.svc']

  async run() {
    const {flags} = await this.parse(AdminAccountList)
    const accounts = await listAccounts(this.target(flags, {existing: true}))
    this.say(accounts.length ? table(['id', 'name', 'modules'], accounts.map((a) => [a.id, a.name, a.modules.join(', ')])) : 'No accounts yet.')
    return accounts
  }
}
