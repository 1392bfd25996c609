/**
 * Class candidates of a source file for Tailwind's `build()` (css engine `tailwind`): every run of
 * characters a utility class can be written with. Tailwind ignores candidates that are not
 * utilities, so over-matching (words, identifiers) costs nothing; what matters is never splitting a
 * real class in two. Two tokenisations are joined:
 * - plain runs, split at whitespace, quotes, brackets of markup/JS and `, ; = { }` (what surrounds a
 *   class in `class="..."`, `className={'...'}`, `['p-4','m-2']`, `{'p-4': on}`);
 * - bracket-aware runs, where an arbitrary value `[...]` may hold quotes and commas
 *   (`bg-[url('/a.png')]`, `grid-cols-[repeat(2,1fr)]`, `font-[Inter,sans-serif]`).
 */
const PLAIN = /[^\s"'`<>{}[\];,=\\]+(?:\[[^\s\]]*\][^\s"'`<>{};,=\\]*)*/g
const BRACKETED = /(?:[^\s"'`<>{};,=\\[\]]|\[[^\s\]]+\])+/g
/** Prefixes that put a class after a colon: `class:bg-red-500` (svelte), `:class` (vue). */
const DIRECTIVE = /^(class|className|:class|v-bind:class):/

export function tailwindCandidates(source: string): string[] {
  const found = new Set<string>()
  const add = (run: string) => {
    if (!run) return
    found.add(run)
    const directive = DIRECTIVE.exec(run)
    if (directive) found.add(run.slice(directive[0].length))
    // A class ending a sentence or a JS expression: `p-4.` `m-2)` `text-sm:`.
    const trimmed = run.replace(/[.:)(!?]+$/, '')
    if (trimmed && trimmed !== run && !trimmed.endsWith('[')) found.add(trimmed)
  }
  for (const [run] of source.matchAll(PLAIN)) add(run)
  for (const [run] of source.matchAll(BRACKETED)) add(run)
  return [...found]
}
