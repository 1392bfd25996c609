/**
 * Variables of `svc prompt render`: `--var name=text`, `--var name:=JSON` (a list or object for
 * `{% for %}`, a number, true/false — the HTTPie convention), and `--vars FILE` (a JSON object; `-`
 * reads stdin); `--var` wins over the file. Sent as query parameters, JSON ones as `name:json`.
 * A name the template could not use is refused, not dropped.
 */
import {readFile} from 'node:fs/promises'
import {SvcError} from '../core/errors.js'

const NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/
const AUTOMATIC = ['TOKEN', 'ACCOUNT_URL', 'account_url', 'date']

function checkName(name: string, where: string): void {
  if (!NAME.test(name)) {
    throw new SvcError('usage', 0, `${where}: "${name}" is not a variable name (letters, digits, _ and -, starting with a letter or _)`)
  }
  if (AUTOMATIC.includes(name)) throw new SvcError('usage', 0, `${where}: "${name}" is set automatically${name === 'date' ? ' (use --date)' : ''}`)
}

function checkJson(text: string, where: string): void {
  try {
    JSON.parse(text)
  } catch (error) {
    throw new SvcError('usage', 0, `${where} is not valid JSON: ${(error as Error).message}`)
  }
}

export async function renderVariables(pairs: string[] | undefined, file: string | undefined): Promise<Record<string, string>> {
  const query: Record<string, string> = {}
  const set = (name: string, value: string, json: boolean) => {
    delete query[name]
    delete query[`${name}:json`]
    query[json ? `${name}:json` : name] = value
  }
  if (file !== undefined) {
    let text: string
    try {
      text = file === '-' ? await readStdin() : await readFile(file, 'utf8')
    } catch (error) {
      throw new SvcError('usage', 0, `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      throw new SvcError('usage', 0, `--vars ${file} is not valid JSON: ${(error as Error).message}`)
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new SvcError('usage', 0, `--vars ${file} must hold a JSON object {"name": value}`)
    for (const [name, v] of Object.entries(value)) {
      checkName(name, `--vars ${file}`)
      if (typeof v === 'string') set(name, v, false)
      else set(name, JSON.stringify(v), true)
    }
  }
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new SvcError('usage', 0, `--var takes name=value or name:=JSON, got "${pair}"`)
    const json = pair[eq - 1] === ':'
    const name = pair.slice(0, json ? eq - 1 : eq)
    const value = pair.slice(eq + 1)
    checkName(name, `--var ${pair}`)
    if (json) checkJson(value, `--var ${name}`)
    set(name, value, json)
  }
  return query
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
