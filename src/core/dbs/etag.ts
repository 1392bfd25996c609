/**
 * Optimistic concurrency of records (docs/api.md "ETag and If-Match"): a record's entity tag is a
 * hash of what a reader saw (id, table, data, updated_at). The server answers it in `ETag`; a
 * write sent with `If-Match` that no longer matches is a 412 with the current record. The same
 * function runs in the console, which tags the rows of a list it shows (a list answers no ETag
 * per row), so a change queued from the grid carries the version it was made on.
 *
 * The hash and the If-Match rule are src/core/etag.ts, shared with prompts, apps and dashboards.
 */
import {hash64} from '../etag.js'

interface Tagged {
  id: number
  table_name: string | null
  data: unknown
  updated_at: string
}

/** The strong entity tag of a record, quoted as HTTP writes it: `"r7-3f…"`. */
export function recordEtag(record: Tagged): string {
  return `"r${record.id}-${hash64(JSON.stringify([record.id, record.table_name ?? null, record.data, record.updated_at]))}"`
}

/** The entity tag of a db's definition (its record count left out: records come and go without changing it). */
export function dbEtag(db: {id: number; name: string; code: string | null; app_id: string | null; schema: unknown; public_methods: unknown; fields: unknown; updated_at: string}): string {
  return `"d${db.id}-${hash64(JSON.stringify([db.id, db.name, db.code, db.app_id, db.schema, db.public_methods, db.fields, db.updated_at]))}"`
}

export {ifMatchHolds} from '../etag.js'
