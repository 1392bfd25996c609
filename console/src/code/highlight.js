// Syntax colouring for the code area: the text cut into {text, kind} pieces (rendered as spans,
// never as HTML), with the piece at a parse error's line and column marked. Small scanners, one per
// language family: Liquid (prompts) and the C-like/markup family (apps).

const JS_WORDS = new Set(('await break case catch class const continue default delete do else export extends false finally for from function if import in '
  + 'instanceof let new null of return static super switch this throw true try typeof undefined var void while yield').split(' '))

/** Liquid: `{% tag %}`, `{{ output }}` and `{% comment %}`; the rest is text. */
function liquid(text) {
  const out = []
  const re = /\{%-?\s*comment\s*-?%\}[\s\S]*?(?:\{%-?\s*endcomment\s*-?%\}|$)|\{%[\s\S]*?(?:%\}|$)|\{\{[\s\S]*?(?:\}\}|$)/g
  let last = 0
  for (let m; (m = re.exec(text));) {
    if (m.index > last) out.push({text: text.slice(last, m.index), kind: ''})
    out.push({text: m[0], kind: /^\{%-?\s*comment/.test(m[0]) ? 'comment' : m[0].startsWith('{%') ? 'tag' : 'output'})
    last = m.index + m[0].length
  }
  if (last < text.length) out.push({text: text.slice(last), kind: ''})
  return out
}

/** JavaScript-like code and markup: comments, strings, tags, keywords, numbers. */
function code(text) {
  const out = []
  const re = /\/\*[\s\S]*?(?:\*\/|$)|\/\/[^\n]*|<!--[\s\S]*?(?:-->|$)|`(?:\\[\s\S]|[^`\\])*`?|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?|<\/?[A-Za-z][\w:-]*|\b\d[\d_.]*\b|\b[A-Za-z_$][\w$]*\b/g
  let last = 0
  for (let m; (m = re.exec(text));) {
    const t = m[0]
    let kind = ''
    if (t.startsWith('/*') || t.startsWith('//') || t.startsWith('<!--')) kind = 'comment'
    else if (/^[`"']/.test(t)) kind = 'string'
    else if (t.startsWith('<')) kind = 'tag'
    else if (/^\d/.test(t)) kind = 'number'
    else if (JS_WORDS.has(t)) kind = 'keyword'
    if (!kind) continue
    if (m.index > last) out.push({text: text.slice(last, m.index), kind: ''})
    out.push({text: t, kind})
    last = m.index + t.length
  }
  if (last < text.length) out.push({text: text.slice(last), kind: ''})
  return out
}

/** Offset of a 1-based line and column in `text` (clamped), or -1. */
export function offsetOf(text, line, column) {
  if (!line) return -1
  let at = 0
  for (let l = 1; l < line; l++) {
    const next = text.indexOf('\n', at)
    if (next < 0) return text.length
    at = next + 1
  }
  const end = text.indexOf('\n', at)
  return Math.min(at + Math.max((column ?? 1) - 1, 0), end < 0 ? text.length : end)
}

/** The pieces of `text` in `language`, the rest of the problem's line marked `problem`. */
export function paint(text, language, problem) {
  const pieces = language === 'liquid' ? liquid(text) : code(text)
  const from = problem ? offsetOf(text, problem.line, problem.column) : -1
  if (from < 0) return pieces
  const lineEnd = text.indexOf('\n', from)
  const to = Math.max(lineEnd < 0 ? text.length : lineEnd, from + 1)
  const out = []
  let at = 0
  for (const p of pieces) {
    const start = at
    const end = at + p.text.length
    at = end
    if (end <= from || start >= to) {
      out.push(p)
      continue
    }
    const a = Math.max(from, start) - start
    const b = Math.min(to, end) - start
    if (a > 0) out.push({text: p.text.slice(0, a), kind: p.kind})
    out.push({text: p.text.slice(a, b), kind: `${p.kind} problem`.trim()})
    if (b < p.text.length) out.push({text: p.text.slice(b), kind: p.kind})
  }
  // An error at the very end (an unclosed tag) still shows: a marked space.
  if (from >= text.length) out.push({text: ' ', kind: 'problem'})
  return out
}
