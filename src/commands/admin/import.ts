import {Args, Flags} from '#oclif'
import {AdminCommand} from '../../cli/admin-command.js'
import {yesFlag} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import {passphraseFlag, readPassphrase} from '../../cli/passphrase.js'
import {withByteProgress} from '../../cli/spinner.js'

export default class AdminImport extends AdminCommand {
  static description = 'Import an account export (svc admin export) into this server: a new account, every id renumbered; ' +
    'codes and ids taken here are listed first and refuse the import (docs/backups.md)'
  static examples = [
    '<%= config.bin %> admin import acme.svcbak --data ./.svc --dry-run',
    '<%= config.bin %> admin import acme.svcbak --database-url postgres://svc@db/svc --yes',
    '<%= config.bin %> admin import acme.svcbak --data ./fresh --with-tokens --yes   # seed a new data dir; the old tokens keep working',
  ]
  static args = {file: Args.string({description: 'account export (svc admin export)', required: true})}
  static flags = {
    account: Flags.integer({description: 'import into this existing account, which must hold nothing yet (default: a new account)', min: 1}),
    'dry-run': Flags.boolean({description: 'show what would be written and what collides, write nothing', default: false}),
    'with-tokens': Flags.boolean({
      description: 'carry the users\' API tokens (their hashes) over, so the source\'s tokens sign in here too (default: left out; issue new ones with svc admin user token)',
      default: false,
    }),
    'passphrase-file': passphraseFlag,
    yes: yesFlag,
  }

  async run() {
    const {args, flags} = await this.parse(AdminImport)
    const target = this.target(flags, {existing: false})
    const where = target.description.replace(/^\w+: /, '').replace(/ \(new\)$/, '')
    const options = {account: flags.account, withTokens: flags['with-tokens'], passphrase: readPassphrase(flags['passphrase-file'])}
    const {conflictError, planImport, importAccount} = await import('../../services/backup/account.js')
    const plan = await withByteProgress('Checking', !this.jsonEnabled(), (onBytes) => planImport(args.file, target, {...options, onBytes}))
    const into = plan.account.new ? `a new account "${plan.account.name}"` : `account ${plan.account.id} ("${plan.account.name}")`
    const summary = `${plan.rows} rows of account ${plan.from.account.id} ("${plan.from.account.name}", ${plan.from.store}, ${plan.from.created_at}) into ${into} of ${where}`
    if (flags['dry-run']) {
      this.say(`Would import ${summary}:`)
      for (const [table, n] of Object.entries(plan.tables)) if (n) this.say(`  ${table}: ${n}`)
      this.say(`API tokens ${plan.tokens}; secrets ${plan.secrets}.`)
      if (plan.collisions.length) {
        this.say(`${plan.collisions.length} collide with this server (the import would refuse):`)
        for (const c of plan.collisions) this.say(`  ${c.message}`)
      } else this.say('Nothing collides.')
      return {dry_run: true, ...plan}
    }
    if (plan.collisions.length) {
      // The same refusal the import makes in its transaction, before asking anything.
      throw conflictError(plan.collisions)
    }
    if (!(await confirmDestructive({yes: flags.yes, action: `import into ${where}`, message: `Import ${summary}?`}))) {
      this.say('Nothing imported.')
      return {imported: false}
    }
    const result = await withByteProgress('Importing', !this.jsonEnabled(), (onBytes) => importAccount(args.file, target, {...options, plan, onBytes}))
    for (const note of result.notes) this.note(`Note: ${note}`)
    if (result.tokens === 'left out') this.note(`API tokens were not carried over: issue new ones with svc admin user token LOGIN --account ${result.account.id}.`)
    if (result.secrets === 'left out') this.note('Connector secret tokens were not carried (left out of the export, or no passphrase given): set them again.')
    this.say(`Imported ${result.rows} rows into account ${result.account.id} ("${result.account.name}") of ${where} in ${(result.duration_ms / 1000).toFixed(1)} s`)
    return result
  }

}
