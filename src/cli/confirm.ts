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
