/**
 * Classic scripts (registry engines with `compile: 'script'`): TypeScript types stripped by
 * esbuild's transform (no bundle: nothing is read), an inline source map of the file as written.
 * A classic script has no imports: any `import` is refused with its place (one rule for every
 * engine: an app imports only the packages its engine provides, and a script's engine provides none).
 */
import {CompileError, locate} from './errors.js'

/** The first static `import ... from`, `import '...'` or `export ... from` of a script, as a CompileError. */
export function scriptImportError(source: string): CompileError | null {
  const re = /^[ \t]*(?:import\s*(?:[\w*{}\s,$]+\s*from\s*)?['"]|export\s*(?:[\w*{}\s,$]+\s*)?from\s*['"])/gm
  const m = re.exec(source)
  if (!m) return null
  const at = m.index + m[0].length - m[0].trimStart().length
  const before = source.slice(0, at)
  return new CompileError(
    'a js app is a classic script and cannot import (a library needs its engine: --engine lists them; or put the code in this file)',
    before.split('\n').length, at - before.lastIndexOf('\n'))
}

export async function scriptCompile(source: string): Promise<string> {
  const refused = scriptImportError(source)
  if (refused) throw refused
  const esbuild = await import('esbuild')
  try {
    const out = await esbuild.transform(source, {
      loader: 'ts',
      target: 'es2022',
      sourcemap: 'inline',
      sourcefile: 'app.js',
      sourcesContent: true,
      logLevel: 'silent',
      tsconfigRaw: {},
    })
    return out.code
  } catch (error) {
    throw locate(error, 'app.js').within(source)
  }
}
