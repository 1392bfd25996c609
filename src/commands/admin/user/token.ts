import {Args, Flags} from '#oclif'
import {newToken} from '../../../client/admin.js'
import {AdminCommand} from '../../../cli/admin-command.js'
import {confirmDestructive} from '../../../cli/confirm.js'

export default class AdminUserToken extends AdminCommand {
  static description = 'Issue a new API token for a user of a local data dir; the user\'s old API tokens stop working at once'
  static examples = ['<%= config.bin %> admin user token alice --data ./.svc --yes']
  static args = {login: Args.string({description: 'login of the user', required: true})}
  static flags = {
    account: Flags.integer({description: 'account id (default: the first account)'}),
    yes: Flags.boolean({char: 'y', description: 'do not ask before revoking the old tokens', default: false}),
  }

  async run() {
    const {args, flags} = await this.parse(AdminUserToken)
    const target = this.target(flags, {existing: true})
    if (!(await confirmDestructive({
      yes: flags.yes, action: `revoking the API tokens of ${args.login}`,
      message: `Issue a new token for ${args.login}? Every token ${args.login} has now stops working.`,
    }))) {
      this.say('Nothing changed.')
      return {login: args.login, token: null, revoked: 0}
    }
    const result = await newToken(target, args.login, flags.account)
    this.say(`Revoked ${result.revoked} old token(s) of ${result.login} (id ${result.id})`)
    this.say(`New token (shown only now): ${result.token}`)
    return result
  }
}
