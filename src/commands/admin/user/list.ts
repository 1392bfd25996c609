import {Flags} from '#oclif'
import {listUsers} from '../../../admin/local-admin.js'
import {AdminCommand} from '../../../cli/admin-command.js'
import {table} from '../../../cli/table.js'

export default class AdminUserList extends AdminCommand {
  static description = 'List the users of an account of a local data dir (tokens are never shown)'
  static examples = ['<%= config.bin %> admin user list --data ./.svc']
  static flags = {account: Flags.integer({description: 'account id (default: the first account)'})}

  async run() {
    const {flags} = await this.parse(AdminUserList)
    const users = await listUsers(this.target(flags, {existing: true}), flags.account)
    this.say(users.length
      ? table(['id', 'login', 'role', 'email', 'permissions'], users.map((u) => [u.id, u.login, u.role, u.email, u.permissions.join(', ')]))
      : 'No users yet. Add one: svc admin user add LOGIN --role admin')
    return users
  }
}
