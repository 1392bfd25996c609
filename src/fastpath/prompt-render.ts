/**
 * `svc prompt render`: the oclif command and the fast path of bin/run.js (which answers without
 * loading @oclif/core). Against a server both ask `GET /svc/prompt/CODE.md`; on a local data dir
 * the fast path calls the function behind that route directly (src/fastpath/embedded-render.ts),
 * while the oclif command goes through the in-process app.
 *
 * The fast path is one CommonJS file, dist/fastpath-prompt-render.cjs (scripts/bundle-fastpath.js),
 * loaded with a V8 code cache; what only a server or PostgreSQL needs (src/fastpath/backend-render.ts)
 * is an ES module of its own that the caller of fastRender loads when asked.
 */
import type {Client} from '../client/backend.js'
import {resolveTarget, type Target, type TargetFlags} from '../client/resolve.js'
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
export function printResult(r: RenderResult, options: RenderOutput): void {
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

/** The module of src/fastpath/backend-render.ts, as its bundle (dist/fastpath-backend-render.js) exports it. */
export type BackendRenderModule = typeof import('./backend-render.js')

/** What a render prints: the result as JSON, and the explain lines. */
export interface RenderOutput {
  json: boolean
  explain: boolean
}

/** An open source of one render: how it describes itself (stderr), the render, and what closes it. */
export interface OpenRender {
  description: string
  render(): Promise<RenderResult>
  close(): unknown
}

/** Prints an error as every command does and sets the exit code. */
function fail(error: unknown, json: boolean): void {
  process.exitCode = printError(isSvcError(error) ? error : new SvcError('internal', 0, (error as Error)?.message ?? String(error)), json)
}

/**
 * Opens a render, prints its description (stderr, none with --json) and its result, or the error
 * with its exit code; closes what it opened. Errors are classes of this module's own copy of
 * src/core/errors.ts, so each bundle runs this with the renders it opens.
 */
export async function runRender(output: RenderOutput, open: () => Promise<OpenRender>): Promise<void> {
  let opened: OpenRender | undefined
  try {
    opened = await open()
    if (!output.json) process.stderr.write(opened.description + '\n')
    printResult(await opened.render(), output)
  } catch (error) {
    fail(error, output.json)
  } finally {
    await opened?.close()
  }
}

/**
 * Runs `svc prompt render ARGV` without oclif. Returns false (nothing printed) when the arguments
 * are not ones it handles, so the caller falls back to oclif. `loadBackendRender` imports the
 * render through a backend (a server, or the embedded app on PostgreSQL): only those targets call it.
 */
export async function fastRender(argv: string[], loadBackendRender: () => Promise<BackendRenderModule>): Promise<boolean> {
  const parsed = parseRenderArgv(argv)
  if (!parsed) return false
  const output: RenderOutput = {json: parsed.bools.has('json'), explain: parsed.bools.has('explain')}
  const options: RenderOptions = {
    code: parsed.code,
    vars: parsed.vars,
    varsFile: parsed.values.vars,
    date: parsed.values.date,
    strict: parsed.bools.has('strict'),
    token: parsed.values.token,
  }
  let target: Target
  try {
    target = resolveTarget(parsed.values as TargetFlags)
  } catch (error) {
    fail(error, output.json)
    return true
  }
  // The direct read is of the SQLite file: with a database URL, the embedded backend (PostgreSQL) answers instead.
  if (target.kind === 'embedded' && !target.options.databaseUrl) {
    const {options: embedded} = target
    await runRender(output, async () => {
      const local = await (await import('./embedded-render.js')).openLocalRenderer(embedded)
      return {
        description: local.description,
        render: async () => local.render(options.code, new URLSearchParams(await renderQuery(options)), {strict: !!options.strict, token: options.token})
          .catch((error) => Promise.reject(withListHint(error))),
        close: local.close,
      }
    })
  } else {
    await (await loadBackendRender()).renderThroughBackend(target, options, output)
  }
  return true
}
