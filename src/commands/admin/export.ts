import {Flags} from '#oclif'
import {AdminCommand} from '../../cli/admin-command.js'
import {passphraseFlag, readPassphrase} from '../../cli/passphrase.js'
import {progressBar} from '../../cli/spinner.js'

export default class AdminExport extends AdminCommand {
  static description = 'Write one account\'s workspace to an archive, to import into another server (svc admin import; docs/backups.md)'
  static examples = [
    '<%= config.bin %> admin export --account 1 --data ./.svc --out acme.svcbak',
    '<%= config.bin %> admin export --account 3 --database-url postgres://… --out team.svcbak --json',
  ]
  static flags = {
    account: Flags.integer({description: 'id of the account to export (svc admin account list)', required: true, min: 1}),
    out: Flags.string({char: 'o', description: 'archive file to write (written as FILE.partial, moved into place when complete)', required: true}),
    'passphrase-file': passphraseFlag,
  }

  async run() {
    const {flags} = await this.parse(AdminExport)
    const target = this.target(flags, {existing: true})
    const passphrase = readPassphrase(flags['passphrase-file'])
    const {exportAccount} = await import('../../services/backup/account.js')
    let bar = {update(_n: number) {}, stop() {}}
    const result = await exportAccount(target, flags.account, flags.out, {
      passphrase,
      onTotal: async (total) => {
        bar = await progressBar('Exporting', total, !this.jsonEnabled())
      },
      onRows: (n) => bar.update(n),
    }).finally(() => bar.stop())
    if (!passphrase) this.note('Connector secret tokens were left out: give SVC_BACKUP_PASSPHRASE or --passphrase-file to carry them encrypted.')
    this.say(`Wrote ${result.file}: account ${result.account.id} ("${result.account.name}"), ${result.rows} rows in ${Object.keys(result.tables).length} tables, ` +
      `${(result.bytes / 1e6).toFixed(1)} MB of data, in ${(result.duration_ms / 1000).toFixed(1)} s`)
    return result
  }
}
