import type {SvcError} from '../core/errors.js'
import {err as colors} from './style.js'

/** Exit codes of every command (docs/cli.md). */
export const EXIT = {
  error: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  validation: 5,
  server: 6,
} as const

export function exitCodeFor(error: SvcError): number {
  switch (error.code) {
    case 'usage':
      return EXIT.usage
    case 'unauthorized':
    case 'forbidden':
      return EXIT.auth
    case 'not_found':
      return EXIT.notFound
    case 'validation':
    case 'bad_request':
    case 'payload_too_large':
      return EXIT.validation
    case 'network':
    case 'internal':
    case 'rate_limited':
      return EXIT.server
    default:
      return EXIT.error
  }
}

/**
 * Prints an error the way every command does — as `{error: {...}}` on stdout under `--json`,
 * else a message, the field errors and a hint on stderr — and returns its exit code.
 */
export function printError(error: SvcError, json: boolean): number {
  if (json) {
    process.stdout.write(
      JSON.stringify({error: {code: error.code, status: error.status, message: error.message, details: error.details ?? null}}) + '\n',
    )
  } else {
    const c = colors()
    const fields = error.code === 'validation' && error.details && typeof error.details === 'object'
      ? Object.entries(error.details).filter(([, m]) => Array.isArray(m)) as [string, unknown[]][]
      : []
    // One field: printed once (as the error's own message when that already says it); several: a list under one line.
    const [field, messages] = fields[0] ?? ['', []]
    if (fields.length === 1 && !error.message.includes(String(messages[0]))) process.stderr.write(`${c.red('Error:')} ${field} ${messages.join(', ')}\n`)
    else if (fields.length > 1) {
      process.stderr.write(`${c.red('Error:')} ${fields.length} fields are invalid\n`)
      for (const [field, messages] of fields) process.stderr.write(`  ${c.bold(field)}: ${messages.join(', ')}\n`)
    } else process.stderr.write(`${c.red('Error:')} ${error.message}\n`)
    if (error.hint) process.stderr.write(`${c.dim('Try:')} ${error.hint}\n`)
  }
  return exitCodeFor(error)
}
