/**
 * Classic scripts (an engine whose page runs its source as `<script src>` and that does not compile
 * it: js) are stored and served as written. What a browser would refuse — a syntax error,
 * TypeScript syntax, an `import` or `export` — is only a warning: V8 parses the source as a classic
 * script (node:vm, nothing runs) and the first error is said with its place, for the
 * `X-Svc-Warning` header of the write (the CLI prints it, `svc app dev` shows it in its terminal).
 */
import {Script} from 'node:vm'

/** The warning of a classic script a browser would refuse, or null when it parses. */
export function classicScriptWarning(source: string, file = 'app.js'): string | null {
  try {
    new Script(source, {filename: file})
    return null
  } catch (error) {
    if (!(error instanceof SyntaxError)) return null
    const lines = (error.stack ?? '').split('\n')
    const line = /:(\d+)$/.exec(lines[0] ?? '')?.[1]
    const column = lines[2] ? lines[2].search(/\^/) + 1 : 0
    const at = line ? `line ${line}${column > 0 ? `, column ${column}` : ''}: ` : ''
    return `source_code ${at}${error.message}. A js app is served as written and runs as a classic script, ` +
      'so a browser will refuse it (TypeScript and imports need an engine that compiles)'
  }
}
