import {Args, Flags} from '@oclif/core'
import {createAccount} from '../../../client/admin.js'
import {SvcCommand} from '../../../cli/base-command.js'

export default class AdminAccountCreate extends SvcCommand {
  static description = 'Create an account in a local data dir'
  static examples = ['<%= config.bin %> admin account create acme --data ./.svc --json']
  static args = {name: Args.string({description: 'account name', required: true})}
  static flags = {data: Flags.string({description: 'data dir', env: 'SVC_DATA', default: '.svc'})}

  async run() {
    const {args, flags} = await this.parse(AdminAccountCreate)
    const account = await createAccount({dataDir: flags.data, databaseUrl: flags['database-url']?.trim() || undefined}, args.name)
    this.say(`Created account ${account.id} (${account.name})`)
    return account
  }
}
