// The records grid's search box speaks the private search API's own syntax in one line:
//   lov*  london            → q=lov* london        (a fragment, `*`/`%` wildcards)
//   city:London name:a*     → filter[city]=London&filter[name]=a*
//   in:name,city            → search_in=name,city  (the fields q looks in)
//   name:"Ada L*"  "a:b"    → quotes keep spaces (and a literal colon in q)
// These pure functions turn the box into API parameters and back; the URL keeps the parameters.

const FIELD = /^[A-Za-z_][A-Za-z0-9_-]*$/
const TOKEN = /"((?:[^"\\]|\\.)*)"|(\S+)/g

const unquote = (s) => s.replace(/\\(.)/g, '$1')
const quote = (s) => (/[\s"]/.test(s) || s === '' ? `"${s.replace(/(["\\])/g, '\\$1')}"` : s)

/** Splits the box into tokens, `name:"a b"` kept as one token: [{text, quoted, field, value}]. */
function tokens(text) {
  const out = []
  let m
  TOKEN.lastIndex = 0
  while ((m = TOKEN.exec(text))) {
    if (m[1] !== undefined) {
      out.push({q: unquote(m[1])})
      continue
    }
    const word = m[2]
    const colon = word.indexOf(':')
    const field = colon > 0 ? word.slice(0, colon) : ''
    if (!field || !FIELD.test(field)) {
      out.push({q: word})
      continue
    }
    let value = word.slice(colon + 1)
    if (value.startsWith('"')) {
      // name:"Ada L*" — the value runs to the closing quote, across spaces.
      const rest = text.slice(m.index + colon + 1)
      const closed = /^"((?:[^"\\]|\\.)*)"/.exec(rest)
      if (closed) {
        value = unquote(closed[1])
        TOKEN.lastIndex = m.index + colon + 1 + closed[0].length
      } else value = value.slice(1)
    }
    out.push({field, value})
  }
  return out
}

/** The box's text → {q, search_in, filters: [[field, value]]}. A later `field:` wins over an earlier one. */
export function parseSearch(text) {
  const q = []
  const filters = new Map()
  let searchIn = ''
  for (const t of tokens(text ?? '')) {
    if (t.q !== undefined) q.push(t.q)
    else if (t.field === 'in') searchIn = t.value
    else filters.set(t.field, t.value)
  }
  return {q: q.join(' '), search_in: searchIn, filters: [...filters]}
}

/** The URL's parameters → the box's text (the inverse of parseSearch). */
export function formatSearch(params) {
  const parts = []
  for (const [key, value] of params) {
    const m = /^filter\[(.+)\]$/.exec(key)
    if (m) parts.push(`${m[1]}:${quote(value)}`)
  }
  const searchIn = params.get('search_in')
  if (searchIn) parts.push(`in:${searchIn}`)
  const q = params.get('q')
  if (q) parts.push(...q.split(' ').filter(Boolean).map((w) => (w.includes(':') || w.includes('"') ? quote(w) : w)))
  return parts.join(' ')
}

/** Query parameters the grid keeps in the URL (API names), the box replacing q/search_in/filter[…]. */
export function withSearch(params, text) {
  const next = new URLSearchParams()
  for (const [k, v] of params) if (!['q', 'search_in', 'offset'].includes(k) && !k.startsWith('filter[')) next.append(k, v)
  const {q, search_in: searchIn, filters} = parseSearch(text)
  if (q) next.set('q', q)
  if (searchIn) next.set('search_in', searchIn)
  for (const [field, value] of filters) next.set(`filter[${field}]`, value)
  return next
}

/** Whether the URL asks for a search (q, search_in or a filter), not a plain listing. */
export const isSearch = (params) => [...params.keys()].some((k) => k === 'q' || k === 'search_in' || k.startsWith('filter['))

/**
 * Completions for the word at the end of the box: field names (as `name:`) and `in:`; after
 * `in:` the field names again, comma separated. Returns [{label, text}] where text is the whole new box.
 */
export function completions(text, fields) {
  const at = Math.max(text.lastIndexOf(' '), -1) + 1
  const head = text.slice(0, at)
  const word = text.slice(at)
  if (word.startsWith('"')) return []
  const inList = /^in:(.*)$/.exec(word)
  if (inList) {
    const parts = inList[1].split(',')
    const last = (parts.pop() ?? '').toLowerCase()
    const chosen = new Set(parts)
    return fields.filter((f) => !chosen.has(f) && f.toLowerCase().startsWith(last) && f.toLowerCase() !== last)
      .map((f) => ({label: f, text: `${head}in:${[...parts, f].join(',')}`}))
  }
  if (word.includes(':')) return []
  const lower = word.toLowerCase()
  return [...fields, 'in'].filter((f) => f.toLowerCase().startsWith(lower))
    .map((f) => ({label: f === 'in' ? 'in: (fields q looks in)' : `${f}:`, text: `${head}${f}:`}))
}

/** The sort after a click on a column: ascending, then descending, then the default order. */
export function nextSort(current, field) {
  if (current === field) return `-${field}`
  if (current === `-${field}`) return ''
  return field
}
