import {Args, Flags} from '#oclif'
import {AdminCommand} from '../../cli/admin-command.js'
import {passphraseFlag, readPassphrase} from '../../cli/passphrase.js'
import {withByteProgress} from '../../cli/spinner.js'
import {yesFlag} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'

export default class AdminRestore extends AdminCommand {
  static description = 'Fill a new data dir or an empty database from an archive (any store from any store; docs/backups.md)'
  static examples = [
    '<%= config.bin %> admin restore svc.svcbak --data ./restored',
    '<%= config.bin %> admin restore svc.svcbak --database-url postgres://svc@db/svc   # from the embedded default to PostgreSQL',
  ]
  static args = {file: Args.string({description: 'archive file (svc admin backup)', required: true})}
  static flags = {
    force: Flags.boolean({description: 'replace everything in a target that already holds data', default: false}),
    'passphrase-file': passphraseFlag,
    yes: yesFlag,
  }

  async run() {
    const {args, flags} = await this.parse(AdminRestore)
    const target = this.target(flags, {existing: false})
    const where = target.description.replace(/^\w+: /, '').replace(/ \(new\)$/, '')
    if (flags.force && !(await confirmDestructive({yes: flags.yes, action: `replace the data of ${where}`,
      message: `Replace everything in ${where} with the archive's content (when it holds data)?`}))) {
      this.say('Nothing restored.')
      return {restored: false}
    }
    const {restore} = await import('../../services/backup/index.js')
    const {statSync} = await import('node:fs')
    let size = 0
    try {
      size = statSync(args.file).size
    } catch {
      // no such file: the restore says so
    }
    const result = await withByteProgress('Restoring', !this.jsonEnabled(),
      (onBytes) => restore(args.file, target, {force: flags.force, passphrase: readPassphrase(flags['passphrase-file']), onBytes: (n) => onBytes(n, size)}))
    if (result.secrets === 'left out') this.note('Secrets were not restored (left out of the archive, or no passphrase given): connectors need their secret tokens set again.')
    this.say(`Restored ${result.rows} rows in ${Object.keys(result.tables).length} tables from a ${result.from_store} archive of ${result.created_at} into ${where}`)
    return result
  }
}
