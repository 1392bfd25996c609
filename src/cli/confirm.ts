/**
 * Confirmation of a destructive command (docs/cli.md): `--yes` skips it; on a terminal an
 * @inquirer confirm asks on stderr (stdout stays clean for `--json`); with no terminal and no
 * `--yes` the command refuses (exit 2) and changes nothing.
 */
import {SvcError} from '../core/errors.js'

/** A person can answer: stdin and stderr are terminals, and not CI. */
export const canAsk = () => Boolean(process.stdin.isTTY && process.stderr.isTTY && !process.env.CI)

export interface ConfirmOptions {
  /** What is about to happen, as a question: `Delete database "books" and its 120 records?` */
  message: string
  /** `--yes` was given. */
  yes: boolean
  /** Short form for the refusal: `delete database "books"`. */
  action: string
}

/** True to go on, false when the person said no; throws a usage error without a terminal and `--yes`. */
export async function confirmDestructive(options: ConfirmOptions): Promise<boolean> {
  if (options.yes) return true
  if (!canAsk()) {
    throw new SvcError('usage', 0, `not done (${options.action}): confirmation needs a terminal`, undefined,
      'pass --yes to confirm')
  }
  const {confirm} = await import('@inquirer/prompts')
  return confirm({message: options.message, default: false}, {output: process.stderr})
}

export interface OverwriteOptions {
  /** Files that exist and would be overwritten (or removed); none: nothing to ask. */
  files: string[]
  /** `--force` was given. */
  force: boolean
  /** The question on a terminal: `Overwrite books.json (edited since it was written)?` */
  message: string
  /** What to do instead, for the refusal without a terminal: `pass --force to overwrite it, or -o FILE for another file`. */
  hint: string
}

/**
 * Writing over files that exist (docs/cli.md "No silent overwrite"): `--force` writes; on a
 * terminal a question (default No); with no terminal the command refuses (exit 2) and writes nothing.
 */
export async function confirmOverwrite(options: OverwriteOptions): Promise<boolean> {
  if (options.files.length === 0 || options.force) return true
  if (!canAsk()) {
    const [first] = options.files
    throw new SvcError('usage', 0, `not written: ${options.files.length === 1 ? `${first} exists` : `${options.files.join(', ')} exist`}`,
      {files: options.files}, options.hint)
  }
  const {confirm} = await import('@inquirer/prompts')
  return confirm({message: options.message, default: false}, {output: process.stderr})
}
