import {readFileSync} from 'node:fs'
import {Flags} from '#oclif'
import {SvcError} from '../core/errors.js'

/** `--passphrase-file` (or SVC_BACKUP_PASSPHRASE): never a flag's value, which `ps` would show. */
export const passphraseFlag = Flags.string({
  description: 'file holding the passphrase that encrypts (backup) or decrypts (restore) secrets; else SVC_BACKUP_PASSPHRASE; with neither, secrets are left out',
})

/** The passphrase of a backup command: the file's first line, else SVC_BACKUP_PASSPHRASE, else none. */
export function readPassphrase(file: string | undefined): string | undefined {
  if (file) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (error) {
      throw new SvcError('usage', 0, `cannot read the passphrase file: ${(error as Error).message}`)
    }
    const line = text.split(/\r?\n/)[0]
    if (!line) throw new SvcError('usage', 0, 'the passphrase file is empty')
    return line
  }
  return process.env.SVC_BACKUP_PASSPHRASE || undefined
}
