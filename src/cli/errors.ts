/** Turns what a command threw into the one SvcError the base command prints (messages a person can act on). */
import {isSvcError, SvcError} from '../core/errors.js'

/**
 * oclif's parse errors span several lines (`Missing 1 required arg:\nlogin  login of the new user\nSee more
 * help with --help`); keep them on one line that names the argument or flag.
 */
export function usageMessage(message: string): string {
  const lines = message.split('\n').map((l) => l.trim()).filter((l) => l && !/^(See more help with|Note:|Alternatively)/.test(l))
  const missing = /^Missing (\d+) required args?:?$/.exec(lines[0] ?? '')
  if (missing) {
    const names = lines.slice(1).map((l) => l.split(/\s{2,}/)[0]!.toUpperCase())
    return `missing required argument${names.length === 1 ? '' : 's'} ${names.join(', ')}${lines.length > 1 ? ` (${lines.slice(1).map((l) => l.split(/\s{2,}/).slice(1).join(' ')).filter(Boolean).join('; ')})` : ''}`
  }
  return lines.join(': ').replace(/:\s*:/g, ':').replace(/ +:/g, ':')
}

/** The CLI's words for API members that are flags here. */
function cliWording(error: SvcError): SvcError {
  const fix = (s: string) => s.replace(/send replace_all/g, 'pass --all to replace every one')
  if (!/replace_all/.test(error.message) && !/replace_all/.test(JSON.stringify(error.details ?? null))) return error
  const details = error.details && typeof error.details === 'object'
    ? Object.fromEntries(Object.entries(error.details).map(([k, v]) => [k, Array.isArray(v) ? v.map((m) => (typeof m === 'string' ? fix(m) : m)) : v]))
    : error.details
  return new SvcError(error.code, error.status, fix(error.message), details, error.hint)
}

/** A hint for errors that come without one. */
function withHint(error: SvcError): SvcError {
  if (error.hint) return error
  if (error.code === 'unauthorized') {
    return new SvcError(error.code, error.status, error.message, error.details,
      'pass --token T (or set SVC_TOKEN), or save a server and its token with: svc login --url URL')
  }
  if (error.code === 'forbidden') {
    return new SvcError(error.code, error.status, error.message, error.details, 'the user of this token lacks the permission; see: svc whoami')
  }
  return error
}

export function toSvcError(err: Error & {oclif?: {exit?: number}}): SvcError {
  if (isSvcError(err)) return withHint(cliWording(err))
  if (err.oclif?.exit !== undefined) return new SvcError('usage', 0, usageMessage(err.message), undefined, 'add --help to see the usage')
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new SvcError('usage', 0, err.message)
  return new SvcError('internal', 0, err.message)
}
