/** A compile failure of user source, with the line and column when the compiler gives them. */
export class CompileError extends Error {
  constructor(message: string, readonly line?: number, readonly column?: number) {
    super(message)
    this.name = 'CompileError'
  }

  /**
   * The same error with a position that exists in `source`: compilers sometimes report a place in
   * their generated code (a line past the end, a column past the line); such a position is dropped.
   */
  within(source: string): CompileError {
    if (this.line === undefined) return this
    const lines = source.split('\n')
    const text = lines[this.line - 1]
    if (this.line < 1 || text === undefined) return new CompileError(this.message)
    if (this.column !== undefined && (this.column < 1 || this.column > text.length + 1)) return new CompileError(this.message, this.line)
    return this
  }

  /** `line 3, column 7: Unexpected token` (what the 422 shows under `source_code`). */
  describe(): string {
    if (this.line === undefined) return this.message
    return this.column !== undefined ? `line ${this.line}, column ${this.column}: ${this.message}` : `line ${this.line}: ${this.message}`
  }

  /**
   * `describe()` and, when the place is in `source`, its code frame: up to two lines before, the
   * line, and a caret under the column (the whole error, as `svc app dev` prints it).
   */
  describeIn(source: string): string {
    const placed = this.within(source)
    const {line, column} = placed
    if (line === undefined) return placed.describe()
    const lines = source.split('\n')
    const first = Math.max(1, line - 2)
    const width = String(line).length
    const frame = lines.slice(first - 1, line).map((text, i) => `${first + i === line ? '>' : ' '} ${String(first + i).padStart(width)} | ${text}`)
    if (column !== undefined) frame.push(`  ${' '.repeat(width)} | ${lines[line - 1]!.slice(0, column - 1).replace(/[^\t]/g, ' ')}^`)
    return `${placed.describe()}\n${frame.join('\n')}`
  }
}

const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '')

/** Turns whatever a compiler threw into a CompileError with line/column (1-based column). */
export function locate(error: unknown, file: string): CompileError {
  const e = error as any
  const first = Array.isArray(e?.errors) && e.errors.length ? e.errors[0] : e
  const loc = first?.loc ?? first?.start ?? first?.location ?? e?.loc ?? e?.start
  let line: number | undefined = typeof loc?.line === 'number' ? loc.line : undefined
  let column: number | undefined = typeof loc?.column === 'number' ? loc.column + 1 : undefined
  let message = stripAnsi(String(first?.text ?? first?.message ?? e?.message ?? error))
  // Drop the absolute temp path from messages, keep only the first meaningful line.
  message = message.replace(/\/[^\s:'"]*svc-build-[^\s:'"]*\//g, '').split('\n').map((l) => l.trim()).filter(Boolean)[0] ?? 'compile failed'
  if (line === undefined) {
    const m = new RegExp(`${file.replace('.', '\\.')}:(\\d+):(\\d+)`).exec(stripAnsi(String(e?.message ?? '')))
    if (m) {
      line = Number(m[1])
      column = Number(m[2]) + 1
    }
  }
  message = message.replace(/^\[[^\]]+\]\s*/, '').replace(/^.*?App\.[a-z]+(:\d+:\d+)?:?\s*/, '')
  return new CompileError(message || 'compile failed', line, column)
}

/**
 * A single-file app has nothing beside it to import: the first relative or absolute import of the
 * source (`import {count} from './stores.js'`), as an error at its real place, else null.
 */
export function localImportError(source: string): CompileError | null {
  const re = /\b(?:import|export)\s*(?:[\w*{}\s,$]+\s*from\s*)?(['"])(\.{0,2}\/[^'"]*)\1|\bimport\s*\(\s*(['"])(\.{0,2}\/[^'"]*)\3\s*\)/g
  for (const m of source.matchAll(re)) {
    const spec = m[2] ?? m[4]!
    const at = m.index! + m[0].indexOf(spec) - 1
    const before = source.slice(0, at)
    const line = before.split('\n').length
    const column = at - before.lastIndexOf('\n')
    // The file is named only when it is a neighbour (`./stores.js`): a path elsewhere is not echoed.
    const named = /^\.\/[^/?#]+$/.test(spec) ? `import "${spec}"` : 'this import'
    return new CompileError(
      `${named}: a single-file app cannot import other files; put that code in this file (apps may import only their engine's packages)`,
      line, column)
  }
  return null
}

/** The package an import names (`lodash` of `lodash/fp`, `@scope/name` of `@scope/name/x`), never a path. */
export const importedPackage = (spec: string): string => {
  const parts = spec.split(/[/\\?#]/)
  return (spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!).slice(0, 60)
}
