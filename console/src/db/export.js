// Export of the grid's current query: NDJSON in the format of `svc db export` (one
// `{id, table_name, data, created_at, updated_at}` per line) and CSV (RFC 4180).
import {svc} from '../lib/client.js'
import {AUTO_COLUMNS} from './schema.js'
import {isSearch} from './query.js'

const PAGE = 100

/** A flat search answer back in the records API's shape (data fields are the non-automatic keys). */
export function nest(flat, tableName) {
  const data = {}
  for (const [k, v] of Object.entries(flat)) if (!AUTO_COLUMNS.includes(k)) data[k] = v
  return {id: flat.id, table_name: tableName, data, created_at: flat.created_at, updated_at: flat.updated_at}
}

/**
 * Every record of the query, page by page (`onPage(countSoFar)` after each). Without a search:
 * the records list (keyset paging on id when unsorted, as `svc db export` reads); with one: search.
 */
/**
 * @param {string | number} dbRef
 * @param {URLSearchParams | Record<string, string>} params
 * @param {(count: number) => void} [onPage]
 */
export async function fetchAll(dbRef, params, onPage = () => {}) {
  const out = []
  const base = new URLSearchParams(params)
  base.delete('offset')
  base.delete('limit')
  base.set('limit', String(PAGE))
  const tableName = base.get('table_name') || null
  const search = isSearch(base)
  const keyset = !search && !base.get('sort')
  for (let offset = 0, after = 0; ;) {
    const query = new URLSearchParams(base)
    if (keyset) query.set('after_id', String(after))
    else query.set('offset', String(offset))
    const input = {params: {db_id: dbRef}, query: Object.fromEntries(query)}
    /** @type {any[]} */
    const page = search ? await svc.searchRecords(input) : await svc.listRecords(input)
    out.push(...(search ? page.map((r) => nest(r, tableName)) : page))
    onPage(out.length)
    if (page.length < PAGE) return out
    offset += page.length
    after = page[page.length - 1].id
  }
}

export const toNdjson = (records) => records.map((r) => JSON.stringify(r)).join('\n') + (records.length ? '\n' : '')

/**
 * A CSV cell: objects and arrays as JSON; quoted when needed. A string a spreadsheet would run as
 * a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading `'` (OWASP "CSV injection").
 */
export function csvCell(value) {
  if (value === null || value === undefined) return ''
  let s = typeof value === 'object' ? JSON.stringify(value) : String(value)
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s
}

/** CSV with a header row: id, [table_name,] the data fields (declared first, then any seen), created_at, updated_at. */
export function toCsv(records, declared = [], withTable = false) {
  const fields = [...declared]
  const seen = new Set(fields)
  for (const r of records) for (const k of Object.keys(r.data ?? {})) if (!seen.has(k)) {
    seen.add(k)
    fields.push(k)
  }
  const header = ['id', ...(withTable ? ['table_name'] : []), ...fields, 'created_at', 'updated_at']
  const lines = [header.map(csvCell).join(',')]
  for (const r of records) {
    lines.push([r.id, ...(withTable ? [r.table_name] : []), ...fields.map((f) => (Object.hasOwn(r.data ?? {}, f) ? r.data[f] : null)), r.created_at, r.updated_at].map(csvCell).join(','))
  }
  return lines.join('\r\n') + '\r\n'
}

/** Hands a text to the browser as a file download. */
export function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], {type}))
  const a = Object.assign(document.createElement('a'), {href: url, download: name})
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
