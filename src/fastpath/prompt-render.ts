/**
 * `svc prompt render`: the oclif command and the fast path of bin/run.js (which answers without
 * loading @oclif/core). Against a server both ask `GET /svc/prompt/CODE.md`; on a local data dir
 * the fast path calls the function behind that route directly (src/fastpath/embedded-render.ts),
 * while the oclif command goes through the in-process app.
 */
import {dirname} from 'node:path'
import {fileURLToPath} from 'node:url'
import type {Client} from '../client/backend.js'
import {openBackend, resolveTarget, type TargetFlags} from '../client/resolve.js'
import {isSvcError, SvcError} from '../core/errors.js'
import {printError} from '../cli/exit-codes.js'
import {renderVariables} from '../cli/render-vars.js'

export interface RenderOptions {
  code: string
  vars?: string[]
  /** `--vars FILE`: a JSON object of variables (`-` for stdin). */
  varsFile?: string
  date?: string
  strict?: boolean
  /** Token to render as TOKEN on the embedded backend (checked by the server against the acting user). */
  token?: string
}

export interface RenderResult {
  code: string
  text: string
  /** Layer that won: user, team, department, account or system. */
  source: string
  /** The stored prompt that won (null for a system file). */
  prompt_id: string | null
  /** Layer of `<code>_extra` when it was appended, else null. */
  extra: string | null
  /** How TOKEN was filled: bearer, given or placeholder. */
  token: string
  /** Variables the template reads that were not given (they rendered blank). */
  missing: string[]
}

/** The query of a render: `--vars FILE`, the `--var` pairs over it (JSON ones as `name:json`), and `--date`. */
async function renderQuery(options: RenderOptions): Promise<Record<string, string>> {
  const query = await renderVariables(options.vars, options.varsFile)
  if (options.date !== undefined) query.date = options.date
  return query
}

/** An unknown code, with the commands that list the known ones. */
function withListHint(error: unknown): unknown {
  if (isSvcError(error) && error.code === 'not_found') {
    return new SvcError('not_found', 404, error.message, error.details, 'list codes with: svc prompt list, svc prompt system')
  }
  return error
}

/** Asks the backend for `/svc/prompt/CODE.md` and reads the answer and the explain headers. */
export async function renderPrompt(client: Client, options: RenderOptions): Promise<RenderResult> {
  const query = await renderQuery(options)
  const headers: Record<string, string> = {accept: 'text/markdown', 'x-svc-report-missing': '1'}
  if (options.strict) headers['x-svc-strict'] = '1'
  if (options.token && client.backend.kind === 'embedded') headers['x-svc-token'] = options.token
  let res: Response
  try {
    res = await client.raw('GET', `/svc/prompt/${encodeURIComponent(options.code)}.md`, {query, headers})
  } catch (error) {
    throw withListHint(error)
  }
  const text = await res.text()
  return {
    code: options.code,
    text,
    source: res.headers.get('x-svc-prompt-source') ?? 'unknown',
    prompt_id: res.headers.get('x-svc-prompt-id'),
    extra: res.headers.get('x-svc-prompt-extra') === '1' ? res.headers.get('x-svc-prompt-extra-source') ?? 'unknown' : null,
    token: res.headers.get('x-svc-prompt-token') ?? 'unknown',
    missing: (res.headers.get('x-svc-prompt-missing') ?? '').split(',').filter(Boolean),
  }
}

/** The `--explain` lines (stderr). */
export function explainLines(r: RenderResult): string[] {
  return [
    `source: ${r.source}${r.prompt_id ? ` (prompt ${r.prompt_id})` : ` (system file ${r.code})`}`,
    `extra: ${r.extra ? `${r.code}_extra appended (${r.extra})` : 'none'}`,
    `token: ${r.token === 'placeholder' ? 'placeholder <API_TOKEN> (no bearer token; on --data pass --token to render yours)' : r.token}`,
  ]
}

/** Writes the result: the text exactly on stdout (or the JSON result), explain lines on stderr. */
export function printResult(r: RenderResult, options: {json: boolean; explain: boolean}): void {
  if (options.json) {
    process.stdout.write(JSON.stringify(r, null, 2) + '\n')
    return
  }
  if (options.explain) process.stderr.write(explainLines(r).map((l) => l + '\n').join(''))
  const warning = missingWarning(r)
  if (warning) process.stderr.write(warning + '\n')
  process.stdout.write(r.text)
  // A terminal's prompt must not land on the text's last line; a pipe gets the text exactly.
  if (process.stdout.isTTY && !r.text.endsWith('\n')) process.stdout.write('\n')
}

/** The stderr warning for variables that rendered blank (none with `--json`: the result lists them). */
export function missingWarning(r: RenderResult): string | null {
  if (!r.missing.length) return null
  return `Warning: not given, rendered blank: ${r.missing.join(', ')} (pass --var ${r.missing[0]}=VALUE; --strict makes this an error)`
}

// ---------------------------------------------------------------------------------------------
// Fast path (bin/run.js): the same flags as the oclif command, parsed without oclif.

const VALUE_FLAGS = {var: 'var', vars: 'vars', date: 'date', url: 'url', token: 'token', data: 'data', 'database-url': 'database-url', as: 'as', profile: 'profile'} as const
const BOOL_FLAGS = new Set(['explain', 'strict', 'json'])
const ENV: Record<string, string> = {url: 'SVC_URL', token: 'SVC_TOKEN', data: 'SVC_DATA', 'database-url': 'SVC_DATABASE_URL', as: 'SVC_AS', profile: 'SVC_PROFILE'}

interface Parsed {
  code: string
  vars: string[]
  values: Record<string, string>
  bools: Set<string>
}

/** Parses `CODE [flags]` as the oclif command does; null for anything it does not handle (help, unknown flags, ...). */
export function parseRenderArgv(argv: string[]): Parsed | null {
  const values: Record<string, string> = {}
  const vars: string[] = []
  const bools = new Set<string>()
  const positionals: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg)
      continue
    }
    if (!arg.startsWith('--')) return null
    const eq = arg.indexOf('=')
    const name = arg.slice(2, eq === -1 ? undefined : eq)
    if (BOOL_FLAGS.has(name)) {
      if (eq !== -1 || bools.has(name)) return null
      bools.add(name)
      continue
    }
    if (!(name in VALUE_FLAGS)) return null
    let value: string | undefined
    if (eq !== -1) value = arg.slice(eq + 1)
    else {
      value = argv[++i]
      if (value === undefined || (value.startsWith('-') && value !== '-')) return null
    }
    if (name === 'var') vars.push(value)
    else if (name in values) return null
    else values[name] = value
  }
  if (positionals.length !== 1) return null
  for (const [flag, env] of Object.entries(ENV)) {
    const fromEnv = process.env[env]
    if (values[flag] === undefined && fromEnv) values[flag] = fromEnv
  }
  return {code: positionals[0]!, vars, values, bools}
}

/**
 * Runs `svc prompt render ARGV` without oclif. Returns false (nothing printed) when the arguments
 * are not ones it handles, so the caller falls back to oclif.
 */
export async function fastRender(argv: string[]): Promise<boolean> {
  const parsed = parseRenderArgv(argv)
  if (!parsed) return false
  const json = parsed.bools.has('json')
  const options: RenderOptions = {
    code: parsed.code,
    vars: parsed.vars,
    varsFile: parsed.values.vars,
    date: parsed.values.date,
    strict: parsed.bools.has('strict'),
    token: parsed.values.token,
  }
  let close: (() => unknown) | undefined
  try {
    const target = resolveTarget(parsed.values as TargetFlags)
    let result: RenderResult
    // The direct read is of the SQLite file: with a database URL, the embedded backend (PostgreSQL) answers instead.
    if (target.kind === 'embedded' && !target.options.databaseUrl) {
      // liquidjs with a V8 code cache (Node 20 has no compile cache): the embedded renderer requires it.
      const {preloadCommonJs} = await import('./code-cache.js')
      preloadCommonJs('liquidjs', import.meta.url, dirname(fileURLToPath(import.meta.url)))
      const renderer = await (await import('./embedded-render.js')).openLocalRenderer(target.options)
      close = renderer.close
      if (!json) process.stderr.write(renderer.description + '\n')
      result = await renderer.render(options.code, new URLSearchParams(await renderQuery(options)), {strict: !!options.strict, token: options.token})
        .catch((error) => Promise.reject(withListHint(error)))
    } else {
      const {Client} = await import('../client/backend.js')
      const backend = await openBackend(target)
      close = () => backend.close()
      if (!json) process.stderr.write(backend.description + '\n')
      result = await renderPrompt(new Client(backend), options)
    }
    printResult(result, {json, explain: parsed.bools.has('explain')})
  } catch (error) {
    process.exitCode = printError(isSvcError(error) ? error : new SvcError('internal', 0, (error as Error)?.message ?? String(error)), json)
  } finally {
    await close?.()
  }
  return true
}
