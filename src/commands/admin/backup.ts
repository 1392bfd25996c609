import {Flags} from '#oclif'
import {AdminCommand} from '../../cli/admin-command.js'
import {passphraseFlag, readPassphrase} from '../../cli/passphrase.js'
import {progressBar} from '../../cli/spinner.js'

export default class AdminBackup extends AdminCommand {
  static description = 'Write an archive of a data dir or database while servers keep running (docs/backups.md)'
  static examples = [
    '<%= config.bin %> admin backup --data ./.svc --out svc-2026-11-27.svcbak',
    'SVC_BACKUP_PASSPHRASE=… <%= config.bin %> admin backup --database-url postgres://… --out prod.svcbak --json',
  ]
  static flags = {
    out: Flags.string({char: 'o', description: 'archive file to write (written as FILE.partial, moved into place when complete)', required: true}),
    'passphrase-file': passphraseFlag,
    jobs: Flags.integer({char: 'j', min: 1, max: 16,
      description: 'work at once: blocks compressed on that many threads and, on PostgreSQL, big tables read through that many connections on one snapshot (for idle cores; default 1)'}),
  }

  async run() {
    const {flags} = await this.parse(AdminBackup)
    const target = this.target(flags, {existing: true})
    const passphrase = readPassphrase(flags['passphrase-file'])
    const {backup} = await import('../../services/backup/index.js')
    let bar = {update(_n: number) {}, stop() {}}
    const result = await backup(target, flags.out, {
      passphrase,
      parallel: flags.jobs,
      onTotal: async (total) => {
        bar = await progressBar('Backing up', total, !this.jsonEnabled())
      },
      onRows: (n) => bar.update(n),
    }).finally(() => bar.stop())
    if (!passphrase) this.note('Secrets (connector secret tokens, the server\'s keys) were left out: give SVC_BACKUP_PASSPHRASE or --passphrase-file to carry them encrypted.')
    this.say(`Wrote ${result.file}: ${result.rows} rows in ${Object.keys(result.tables).length} tables, ${(result.bytes / 1e6).toFixed(1)} MB of data, in ${(result.duration_ms / 1000).toFixed(1)} s (sha256 ${result.sha256.slice(0, 12)}…)`)
    return result
  }
}
