/**
 * Class candidates of a source file for Tailwind's `build()`: every run of characters a utility
 * class can be written with. Tailwind ignores candidates that are not utilities, so over-matching
 * (words, identifiers) costs nothing; what matters is never splitting a real class in two.
 */
const CANDIDATE = /[^\s"'`<>{};,=\\]+/g

export function tailwindCandidates(source: string): string[] {
  const found = new Set<string>()
  for (const [run] of source.matchAll(CANDIDATE)) {
    found.add(run)
    // `class:bg-red-500` (svelte) and `:class` (vue) style prefixes: also try what follows the first colon.
    const colon = run.indexOf(':')
    if (colon > 0 && /^(class|className|:class)$/.test(run.slice(0, colon))) found.add(run.slice(colon + 1))
  }
  return [...found]
}
