import {Args} from '#oclif'
import {createAccount} from '../../../admin/local-admin.js'
import {AdminCommand} from '../../../cli/admin-command.js'

export default class AdminAccountCreate extends AdminCommand {
  static description = 'Create an account in a local data dir'
  static examples = ['<%= config.bin %> admin account create acme --data ./.svc --json']
  static args = {name: Args.string({description: 'account name', required: true})}

  async run() {
    const {args, flags} = await this.parse(AdminAccountCreate)
    const account = await createAccount(this.target(flags, {existing: false}), args.name)
    this.say(`Created account ${account.id} (${account.name})`)
    return account
  }
}
