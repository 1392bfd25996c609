/** A compile failure of user source, with the line and column when the compiler gives them. */
export class CompileError extends Error {
  constructor(message: string, readonly line?: number, readonly column?: number) {
    super(message)
    this.name = 'CompileError'
  }

  /** `line 3, column 7: Unexpected token` (what the 422 shows under `source_code`). */
  describe(): string {
    return this.line !== undefined ? `line ${this.line}, column ${this.column ?? 1}: ${this.message}` : this.message
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
  message = message.replace(/^\[[^\]]+\]\s*/, '').replace(/^.*?App\.(svelte|vue|jsx)(:\d+:\d+)?:?\s*/, '')
  return new CompileError(message || 'compile failed', line, column)
}
