/**
 * Optimistic concurrency of records (docs/api.md "ETag and If-Match"): a record's entity tag is a
 * hash of what a reader saw (id, table, data, updated_at). The server answers it in `ETag`; a
 * write sent with `If-Match` that no longer matches is a 412 with the current record. The same
 * function runs in the console, which tags the rows of a list it shows (a list answers no ETag
 * per row), so a change queued from the grid carries the version it was made on.
 *
 * Pure and dependency-free (no node:crypto): the console's bundle imports it too, and the tag only
 * has to change when the record does — it is no secret and no signature.
 */

interface Tagged {
  id: number
  table_name: string | null
  data: unknown
  updated_at: string
}

/** Two 32-bit FNV-1a style lanes over the UTF-16 code units: 64 bits, as 16 hex digits. */
function hash64(text: string): string {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ text.length
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
    b ^= b >>> 15
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0')
}

/** The strong entity tag of a record, quoted as HTTP writes it: `"r7-3f…"`. */
export function recordEtag(record: Tagged): string {
  return `"r${record.id}-${hash64(JSON.stringify([record.id, record.table_name ?? null, record.data, record.updated_at]))}"`
}

/** The entity tag of a db's definition (its record count left out: records come and go without changing it). */
export function dbEtag(db: {id: number; name: string; code: string | null; app_id: string | null; schema: unknown; public_methods: unknown; fields: unknown; updated_at: string}): string {
  return `"d${db.id}-${hash64(JSON.stringify([db.id, db.name, db.code, db.app_id, db.schema, db.public_methods, db.fields, db.updated_at]))}"`
}

/**
 * Whether an `If-Match` header holds for the current tag (RFC 9110 §13.1.1): no header holds;
 * `*` holds for any existing record; otherwise one of the listed tags must equal it (strong
 * comparison: a weak `W/"…"` tag never matches).
 */
export function ifMatchHolds(header: string | undefined, current: string): boolean {
  if (header === undefined) return true
  const value = header.trim()
  if (value === '*') return true
  return value.split(',').map((t) => t.trim()).some((t) => t === current)
}
