// The records grid's live updates (docs/console.md "Live updates"): how a change made elsewhere —
// an event of the db's feed, `create`/`update`/`delete` with the record as the records API shapes
// it — lands on the page shown. The choices, so that nothing jumps under the user's hands:
// - an update replaces the row where it is (no re-sort, no re-filter until the next load);
// - a delete removes the row, unless the row has unsaved edits: then it stays, marked as deleted
//   elsewhere, so the edits are not silently lost (saving them answers the API's 404);
// - a create shows at the top when the page is the first of the table's newest-first order (no
//   sort, or `-id`/`-created_at`) without a search or filter — where a reload would put it —, and
//   the page keeps its size (its last row leaves, unless it has unsaved edits); a create older than
//   the page's newest row came late and is already on the page or below it; in any other view it is
//   counted as "not shown" and the grid offers to reload;
// - a change to a row with unsaved edits updates the row, but the edits keep their text and the
//   version they were made on (its ETag): the row says it changed underneath, and the save meets
//   the API's 412 as before (changes.js).

/** Sorts that put a new record first. */
const NEWEST_FIRST = ['', '-id', '-created_at']

/** Whether a record created elsewhere belongs at the top of this page: the first page, newest first, no search or filter. */
export const newOnTop = ({sort, searching, offset}) => !searching && offset === 0 && NEWEST_FIRST.includes(sort)

/**
 * The page after one change of its table.
 * @param {{rows: any[], count: number | null, unseen: number}} view the rows shown, the table's count (null while counting), the creates not shown
 * @param {string} type `create`, `update` or `delete`
 * @param {any} record the record (`{id, table_name}` for a delete)
 * @param {{onTop: boolean, pinned: Set<number>, limit?: number}} how whether new records show at the top (newOnTop); the ids of rows with unsaved edits; the page's size (rows past it leave the page's end)
 * @returns {{rows: any[], count: number | null, unseen: number, gone: number | null, touched: number | null}} `gone`: a pinned row deleted elsewhere; `touched`: the row that changed or appeared
 */
export function applyChange(view, type, record, {onTop, pinned, limit = Infinity}) {
  const {rows, count, unseen} = view
  const same = {rows, count, unseen, gone: null, touched: null}
  if (!record || record.id === undefined || record.id === null) return same
  const at = rows.findIndex((r) => r.id === record.id)
  if (type === 'delete') {
    const counted = count === null ? null : Math.max(0, count - 1)
    if (at < 0) return {...same, count: counted}
    if (pinned.has(record.id)) return {...same, count: counted, gone: record.id}
    return {...same, rows: rows.filter((r) => r.id !== record.id), count: counted}
  }
  if (type !== 'create' && type !== 'update') return same
  if (at >= 0) {
    // Known here (an update, or our own create seen again): in place, never older than what is shown.
    if (!newer(record, rows[at])) return same
    return {...same, rows: rows.map((r, i) => (i === at ? {...r, ...record} : r)), touched: record.id}
  }
  if (type === 'update') return same
  // Older than the newest record shown, on a newest-first page: the page was read after it was
  // written (its event came late, as PostgreSQL's notifications can after a reload): the page and
  // its count already hold it, and a reload would not put it on top.
  if (onTop && rows.length > 0 && typeof record.id === 'number' && record.id < rows[0].id) return same
  const counted = count === null ? null : count + 1
  if (!onTop) return {...same, count: counted, unseen: unseen + 1}
  return {...same, rows: pageOf([record, ...rows], limit, pinned), count: counted, touched: record.id}
}

/** At most `limit` rows, the last ones leaving first, except rows with unsaved edits (they stay). */
function pageOf(rows, limit, pinned) {
  if (rows.length <= limit) return rows
  const out = [...rows]
  for (let i = out.length - 1; i >= 0 && out.length > limit; i--) if (!pinned.has(out[i].id)) out.splice(i, 1)
  return out
}

/** Whether `record` is not older than `shown` (an event replayed after a reload must not undo it). */
function newer(record, shown) {
  if (!record.updated_at || !shown.updated_at) return true
  return Date.parse(record.updated_at) >= Date.parse(shown.updated_at)
}

/**
 * The rows with unsaved edits whose record changed since the edits were made (its ETag differs
 * from theirs): `[{id, fields: [{field, theirs, yours}]}]`, the fields being the edited ones.
 * @param {any[]} rows
 * @param {any[]} queue changes.js's queue
 * @param {(record: any) => string} etagOf
 */
export function changedUnderneath(rows, queue, etagOf) {
  const byId = new Map(rows.map((r) => [r.id, r]))
  const out = new Map()
  for (const c of queue) {
    const row = byId.get(c.id)
    if (!row || !c.etag || etagOf(row) === c.etag) continue
    const entry = out.get(c.id) ?? {id: c.id, fields: []}
    entry.fields.push({field: c.field, theirs: row.data?.[c.field], yours: c.text})
    out.set(c.id, entry)
  }
  return [...out.values()]
}
