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

/** What a flag definition tells a person (oclif's flag shape, the parts read here). */
interface FlagDef {
  description?: string
  type?: string
  options?: readonly string[]
  env?: string
  char?: string
}

/** What the base command knows of the command that failed: its examples (`<%= config.bin %> …`) and flags. */
export interface CommandInfo {
  bin: string
  id?: string
  examples?: readonly (string | {command: string})[]
  flags?: Record<string, FlagDef>
}

const ANSI = /\u001b\[[0-9;]*m/g
const exampleLines = (info: CommandInfo) =>
  (info.examples ?? []).map((e) => (typeof e === 'string' ? e : e.command).replace(/<%=\s*config\.bin\s*%>/g, info.bin))

/** `--old VALUE` as one of the command's examples writes it, else a value made from the flag's definition. */
function flagExample(name: string, def: FlagDef | undefined, examples: string[]): string {
  const pattern = new RegExp(`(?:^|\\s)--${name.replace(/[-]/g, '\\-')}(?:=|\\s+)('[^']*'|"[^"]*"|[^\\s-][^\\s]*)`)
  for (const line of examples) {
    const m = pattern.exec(line)
    if (m) return `--${name} ${m[1]}`
  }
  if (def?.type === 'boolean') return `--${name}`
  if (def?.options?.length) return `--${name} ${def.options[0]}`
  return `--${name} ${name.toUpperCase().replace(/-/g, '_')}`
}

/**
 * oclif's `The following errors occurred: Missing required flag new: Missing required flag old`
 * as one line per flag: what it is and an example, then the command's own example as the hint.
 */
function missingFlags(message: string, info: CommandInfo | undefined): SvcError | undefined {
  const order = Object.keys(info?.flags ?? {})
  const names = [...message.replace(ANSI, '').matchAll(/Missing required flag ([\w-]+)/g)].map((m) => m[1]!)
    .sort((a, b) => order.indexOf(a) - order.indexOf(b))
  if (names.length === 0) return undefined
  const examples = info ? exampleLines(info) : []
  const width = Math.max(...names.map((n) => n.length)) + 4
  const lines = names.map((name) => {
    const def = info?.flags?.[name]
    const what = [def?.description, def?.options?.length ? `one of ${def.options.join(', ')}` : '', def?.env ? `or set ${def.env}` : '']
      .filter(Boolean).join('; ')
    return `  ${`--${name}`.padEnd(width)}${what ? `${what}; ` : ''}e.g. ${flagExample(name, def, examples)}`
  })
  const full = examples.find((line) => names.every((n) => line.includes(`--${n}`)))
  const command = info?.id ? `${info.bin} ${info.id.replace(/:/g, ' ')}` : info?.bin ?? 'svc'
  return new SvcError('usage', 0, `missing required flag${names.length === 1 ? '' : 's'}:\n${lines.join('\n')}`,
    {missing_flags: names}, full ? `${full}   (or see ${command} --help)` : `${command} --help`)
}

export function toSvcError(err: Error & {oclif?: {exit?: number}}, command?: CommandInfo): SvcError {
  if (isSvcError(err)) return withHint(cliWording(err))
  if (err.oclif?.exit !== undefined) {
    return missingFlags(err.message, command) ?? new SvcError('usage', 0, usageMessage(err.message), undefined, 'add --help to see the usage')
  }
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new SvcError('usage', 0, err.message)
  return new SvcError('internal', 0, err.message)
}
