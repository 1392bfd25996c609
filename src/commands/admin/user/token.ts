import {Args, Flags} from '#oclif'
import {newReadOnlyToken, newToken} from '../../../admin/local-admin.js'
import {AdminCommand} from '../../../cli/admin-command.js'
import {confirmDestructive} from '../../../cli/confirm.js'

export default class AdminUserToken extends AdminCommand {
  static description = 'Issue a new API token for a user of a local data dir; the user\'s old API tokens stop working at once. ' +
    'With --read-only: one more token that may read what the user may read and change nothing; the other tokens keep working'
  static examples = [
    '<%= config.bin %> admin user token alice --data ./.svc --yes',
    '<%= config.bin %> admin user token alice --read-only --data ./.svc',
  ]
  static args = {login: Args.string({description: 'login of the user', required: true})}
  static flags = {
    account: Flags.integer({description: 'account id (default: the first account)'}),
    'read-only': Flags.boolean({description: 'a token whose every write is refused (403), for agents and read-only tools; revokes nothing', default: false}),
    yes: Flags.boolean({char: 'y', description: 'do not ask before revoking the old tokens', default: false}),
  }

  async run() {
    const {args, flags} = await this.parse(AdminUserToken)
    const target = this.target(flags, {existing: true})
    if (flags['read-only']) {
      const result = await newReadOnlyToken(target, args.login, flags.account)
      this.say(`New read-only token for ${result.login} (id ${result.id}), shown only now: ${result.token}`)
      return result
    }
    if (!(await confirmDestructive({
      yes: flags.yes, action: `revoking the API tokens of ${args.login}`,
      message: `Issue a new token for ${args.login}? Every token ${args.login} has now (read-only ones too) stops working.`,
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
