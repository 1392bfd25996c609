import {Args, Flags} from '#oclif'
import {addUser} from '../../../admin/local-admin.js'
import {AdminCommand} from '../../../cli/admin-command.js'

export default class AdminUserAdd extends AdminCommand {
  static description = 'Add a user to an account of a local data dir and print its API token (shown once)'
  static examples = [
    '<%= config.bin %> admin user add alice --role admin --data ./.svc --json',
    '<%= config.bin %> admin user add bob --team sales --department north --permission todo',
  ]
  static args = {login: Args.string({description: 'login of the new user', required: true})}
  static flags = {
    account: Flags.integer({description: 'account id (default: the first account, created when there is none)'}),
    role: Flags.string({description: 'admin, manager, user or guest', default: 'user'}),
    permission: Flags.string({description: 'permission name (repeatable)', multiple: true}),
    team: Flags.string({description: 'team name (repeatable; created when missing)', multiple: true}),
    department: Flags.string({description: 'department name (created when missing)'}),
    email: Flags.string({description: 'e-mail address'}),
    name: Flags.string({description: 'display name'}),
  }

  async run() {
    const {args, flags} = await this.parse(AdminUserAdd)
    const user = await addUser(this.target(flags, {existing: false}), {
      login: args.login, accountId: flags.account, role: flags.role, permissions: flags.permission,
      teams: flags.team, department: flags.department, email: flags.email, name: flags.name,
    })
    this.say(`Added user ${user.login} (id ${user.id}) to account ${user.account_id}`)
    this.say(`Token (shown only now): ${user.token}`)
    return user
  }
}
