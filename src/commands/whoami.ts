import {BackendCommand} from '../cli/base-command.js'
import type {UserView} from '../store/accounts/types.js'

type Me = UserView & {account: {id: number; name: string; modules: string[]}}

export default class Whoami extends BackendCommand {
  static description = 'Show the user the current backend acts as'
  static examples = ['<%= config.bin %> whoami', '<%= config.bin %> whoami --url https://svc.example.com --token $TOKEN --json']

  async run() {
    const {flags} = await this.parse(Whoami)
    const me = await (await this.client(flags)).call('getMe')
    this.say(`${me.login} (${me.role}) in account ${me.account.id} "${me.account.name}"`)
    if (me.permissions.length) this.say(`permissions: ${me.permissions.join(', ')}`)
    if (me.team_names.length) this.say(`teams: ${me.team_names.join(', ')}`)
    if (me.department_names.length) this.say(`department: ${me.department_names.join(', ')}`)
    return me
  }
}
