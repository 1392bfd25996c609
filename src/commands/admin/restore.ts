import {Args, Flags} from '#oclif'
import {AdminCommand} from '../../cli/admin-command.js'
import {passphraseFlag, readPassphrase} from '../../cli/passphrase.js'
import {withByteProgress} from '../../cli/spinner.js'
import {yesFlag} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import {sinceFlag} from '../../cli/history.js'

export default class AdminRestore extends AdminCommand {
  static description = 'Fill a new data dir or an empty database from an archive (any store from any store; docs/backups.md)'
  static examples = [
    '<%= config.bin %> admin restore svc.svcbak --data ./restored',
    '<%= config.bin %> admin restore svc.svcbak --database-url postgres://svc@db/svc   # from the embedded default to PostgreSQL',
    '<%= config.bin %> admin restore svc.svcbak --data ./restored --at 2026-11-27T14:05:00Z   # the state at that time (archive + its journal)',
  ]
  static args = {file: Args.string({description: 'archive file (svc admin backup)', required: true})}
  static flags = {
    at: Flags.string({description: 'restore the state at this time (ISO 8601, or an age: 30m, 2h, 7d): the archive rolled back with its journal'}),
    force: Flags.boolean({description: 'replace everything in a target that already holds data', default: false}),
    'passphrase-file': passphraseFlag,
    yes: yesFlag,
  }

  async run() {
    const {args, flags} = await this.parse(AdminRestore)
    const at = sinceFlag(flags.at, '--at')
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
      (onBytes) => restore(args.file, target, {at, force: flags.force, passphrase: readPassphrase(flags['passphrase-file']), onBytes: (n) => onBytes(n, size)}))
    if (result.secrets === 'left out') this.note('Secrets were not restored (left out of the archive, or no passphrase given): connectors need their secret tokens set again.')
    if (result.point_in_time) {
      const {changed, journal_entries_after: later} = result.point_in_time
      const back = Object.entries(changed).map(([kind, c]) => `${kind}s: ${c.version} to their version then, ${c.absent} removed`).join('; ')
      this.say(`Restored the state at ${result.point_in_time.at} from a ${result.from_store} archive of ${result.created_at} into ${where}` +
        ` (${later} journal entries after it rolled back${back ? `: ${back}` : ''})`)
      return result
    }
    this.say(`Restored ${result.rows} rows in ${Object.keys(result.tables).length} tables from a ${result.from_store} archive of ${result.created_at} into ${where}`)
    return result
  }
}
