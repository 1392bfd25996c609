/**
 * Imports a compiler package (a Vite plugin, Tailwind) when a compile worker first compiles. The
 * name is not a literal, so the bundlers of the console and of the CLI's fast path, which reach the
 * registry for engine names, do not follow it into Vite and Node-only code.
 */
export function loadCompiler<T>(name: string): Promise<T> {
  return import(/* @vite-ignore */ name) as Promise<T>
}
