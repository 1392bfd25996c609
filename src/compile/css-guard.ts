/**
 * What an app's CSS may make the compiler read: nothing. Vite expands `url()`, `image-set()` and
 * `@import` by reading files (`url(/etc/passwd?inline)` became base64 in the app's stylesheet), so
 * before Vite's CSS plugin sees a stylesheet, every such reference must point off the server: to
 * `http:`, `https:`, `//host` or `data:` addresses, or a `#fragment`. `@import`, and the Tailwind
 * directives that read files (`@plugin`, `@config`, `@source`, `@reference`), are refused outright.
 *
 * The check runs on the CSS as a browser decodes it (comments dropped, escapes such as `\75 rl(`
 * decoded, any letter case), so it sees at least every reference Vite would follow.
 */

/** Where a reference may point: off the server. */
const OFF_SERVER = /^(https?:\/\/|\/\/|data:|#)/i

/** At-rules that read files (CSS's own `@import`; Tailwind's directives). */
const FILE_AT_RULES = /@(import|plugin|config|source|reference)(?![\w-])/i

export interface CssReadError {
  message: string
  /** Offset in the checked text (of the decoded character's first raw character). */
  index: number
}

/** The CSS as a browser reads it, lower-cased, with a map back to offsets of the raw text. */
function decode(css: string): {text: string; at: number[]} {
  let text = ''
  const at: number[] = []
  let i = 0
  while (i < css.length) {
    if (css.startsWith('/*', i)) {
      const end = css.indexOf('*/', i + 2)
      i = end < 0 ? css.length : end + 2
      text += ' '
      at.push(i - 1)
      continue
    }
    if (css[i] === '\\' && i + 1 < css.length) {
      const hex = /^[0-9a-fA-F]{1,6}\s?/.exec(css.slice(i + 1, i + 8))
      if (hex) {
        const code = parseInt(hex[0].trim(), 16)
        text += code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\ufffd'
        at.push(i)
        i += 1 + hex[0].length
        continue
      }
      if (css[i + 1] !== '\n') {
        text += css[i + 1]
        at.push(i)
        i += 2
        continue
      }
    }
    text += css[i]
    at.push(i)
    i += 1
  }
  return {text: text.toLowerCase(), at}
}

/** The text inside the parentheses that open at `open` (nesting and quotes respected). */
function argument(text: string, open: number): string {
  let depth = 0
  let quote = ''
  for (let i = open; i < text.length; i++) {
    const c = text[i]!
    if (quote) {
      if (c === quote) quote = ''
    } else if (c === '"' || c === "'") quote = c
    else if (c === '(') depth++
    else if (c === ')' && --depth === 0) return text.slice(open + 1, i)
  }
  return text.slice(open + 1)
}

const unquote = (s: string) => s.trim().replace(/^(['"])([\s\S]*)\1$/, '$2').trim()

/** The first reference of the stylesheet that would read a file on the server, else null. */
export function cssReadError(css: string): CssReadError | null {
  const {text, at} = decode(css)
  const found: CssReadError[] = []
  const rule = FILE_AT_RULES.exec(text)
  if (rule) found.push({index: at[rule.index]!, message: `@${rule[1]} is not allowed in app styles (an app's CSS cannot read files; the CSS engine provides the framework)`})
  for (const m of text.matchAll(/url\s*\(/g)) {
    const target = unquote(argument(text, m.index + m[0].length - 1))
    if (!OFF_SERVER.test(target)) {
      found.push({index: at[m.index]!, message: 'url() in app styles may point only to https:, http: or data: addresses (an app has no files beside it)'})
    }
  }
  for (const m of text.matchAll(/image-set\s*\(/g)) {
    const inner = argument(text, m.index + m[0].length - 1)
    for (const s of inner.matchAll(/(['"])([\s\S]*?)\1/g)) {
      if (!OFF_SERVER.test(s[2]!.trim())) {
        found.push({index: at[m.index]!, message: 'image-set() in app styles may point only to https:, http: or data: addresses (an app has no files beside it)'})
      }
    }
  }
  return found.sort((a, b) => a.index - b.index)[0] ?? null
}
