/**
 * A prefix wildcard filter (`filter[email]=ada.*`) as ranges of a string index column: the rows a
 * case-insensitive prefix can match lie in the ranges of the prefix's case variants, so the filter
 * reads those ranges of the column's index instead of every record. The ranges only narrow; the
 * exact case-insensitive LIKE on the record's data still decides, so answers are the same as a scan.
 *
 * Both stores compare text by code point (SQLite's BINARY, PostgreSQL's COLLATE "C"), and fold
 * case as SQLite's LIKE does: ASCII letters only. A string index column holds a string's first
 * STR_INDEX_MAX UTF-16 units, and a number or boolean as JavaScript spells it.
 */
import {STR_INDEX_MAX} from './schema.js'

/** [from, to): `to` is null when nothing above `from` can bound it. */
export type TextRange = [string, string | null]

/** Letters of the prefix whose case variants are enumerated (2^n ranges); the rest of the prefix is left to the exact check. */
const MAX_LETTERS = 5

/**
 * A field value's SQL text (what the LIKE reads) may differ from what the index column holds when it
 * is not a string: a number (SQLite writes 0.1+0.2 as 0.3, JavaScript as 0.30000000000000004), a
 * boolean (1 / 0 against "true" / "false"), an object or array (JSON text, no column value). Such
 * texts start with a digit, a sign, a dot, `{` or `[`: a prefix starting otherwise can only match a string.
 */
const NOT_ONLY_STRINGS = /^[\d+\-.{[]/

/** The ranges of a string index column that hold every value starting with `prefix` (ASCII case folded), or null when the column cannot narrow it. */
export function prefixRanges(prefix: string): TextRange[] | null {
  if (prefix === '' || NOT_ONLY_STRINGS.test(prefix)) return null
  let head = ''
  let letters = 0
  for (const ch of prefix) {
    const letter = /^[A-Za-z]$/.test(ch)
    if (letter && letters === MAX_LETTERS) break
    if (head.length + ch.length > STR_INDEX_MAX) break
    head += ch
    if (letter) letters++
  }
  let variants = ['']
  for (const ch of head) {
    const cases = /^[A-Za-z]$/.test(ch) ? [ch.toLowerCase(), ch.toUpperCase()] : [ch]
    variants = variants.flatMap((v) => cases.map((c) => v + c))
  }
  return variants.map((v) => [v, successor(v)])
}

/** The least string above every string that starts with `s` (code point order), or null. */
function successor(s: string): string | null {
  const chars = [...s]
  while (chars.length) {
    const last = chars.pop()!.codePointAt(0)!
    let next = last + 1
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000 // no lone surrogates in stored text
    if (next <= 0x10ffff) return chars.join('') + String.fromCodePoint(next)
  }
  return null
}
