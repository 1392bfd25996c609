import {Args, Flags} from '#oclif'
import {SvcCommand} from '../../../cli/base-command.js'
import {passphraseFlag, readPassphrase} from '../../../cli/passphrase.js'
import {withSpinner} from '../../../cli/spinner.js'

export default class AdminBackupVerify extends SvcCommand {
  static description = 'Check an archive: its structure, counts and checksum, then restore it into a scratch file and count what came back'
  static examples = ['<%= config.bin %> admin backup verify svc-2026-11-27.svcbak --json']
  static args = {file: Args.string({description: 'archive file', required: true})}
  static flags = {'passphrase-file': passphraseFlag}

  async run() {
    const {args, flags} = await this.parse(AdminBackupVerify)
    const {verify} = await import('../../../services/backup/index.js')
    const result = await withSpinner('Verifying', !this.jsonEnabled(),
      () => verify(args.file, {passphrase: readPassphrase(flags['passphrase-file'])}))
    if (result.account) {
      this.say(`OK: ${result.file} imports whole: account ${result.account.id} ("${result.account.name}"), ${result.rows} rows in ${Object.keys(result.tables).length} tables, from ${result.store} (svc ${result.svc_version}, ${result.created_at}); secrets ${result.secrets}`)
      return result
    }
    this.say(`OK: ${result.file} restores whole: ${result.rows} rows in ${Object.keys(result.tables).length} tables, from ${result.store} (svc ${result.svc_version}, ${result.created_at}); secrets ${result.secrets}`)
    return result
  }
}
