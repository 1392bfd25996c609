// The grid's queue of inline edits: one entry per (record, field) with the value before and the
// text typed; reviewed as a diff, then saved together (one PATCH per record) or discarded. A
// change the API refuses stays queued with its message; the record's other changes still save.
// Each change carries the ETag of the row it was made on (If-Match): when someone else changed the
// record meanwhile, the API answers 412 and the change stays queued showing their value; saving
// again then goes over their version knowingly.
import {fieldsOf} from '../lib/errors.js'
import {fromInput} from './form.js'

export const changeKey = (id, field) => `${id}:${field}`

/** The queue after a cell's edit: added at the end, updated in place, or removed when the text is back to the original. */
export function queueChange(queue, {id, field, kind, before, beforeText, text, etag}) {
  const key = changeKey(id, field)
  if (text === beforeText) return queue.filter((c) => c.key !== key)
  const change = {key, id, field, kind, before, text, etag, error: '', theirs: undefined}
  return queue.some((c) => c.key === key) ? queue.map((c) => (c.key === key ? change : c)) : [...queue, change]
}

/** A change as one line of the review: `#7 title: "Dune" → "Dune II"` (empty shown as ∅). */
export function diffLine(change) {
  const show = (v) => (v === undefined || v === null || v === '' ? '∅' : JSON.stringify(v))
  const after = fromInput(change.kind, change.text)
  return `#${change.id} ${change.field}: ${show(change.before)} → ${after.error ? change.text : show(after.value)}${change.theirs && JSON.stringify(change.theirs.value) !== JSON.stringify(change.before) ? ` (now ${show(change.theirs.value)}, changed by someone else)` : ''}`
}

/** The data a record's changes send: {data, errors} (bad JSON is an error here; empty is null). */
export function patchData(changes) {
  const data = {}
  const errors = {}
  for (const c of changes) {
    const {value, error} = fromInput(c.kind, c.text)
    if (error) errors[c.field] = error
    else data[c.field] = value === undefined ? null : value
  }
  return {data, errors}
}

/**
 * Saves the queue: per record, a PATCH of its changed fields; on a 422 the fields it names keep
 * their message and the record's other fields are sent again without them. `patch(id, data, etag)`
 * returns the saved record or throws the client's SvcError. On a 412 the record's changes stay
 * queued with the other person's values (`theirs`) and the current tag, so the next save is a
 * deliberate overwrite. Returns the changes still queued (with errors). With `etagOf` (the record's
 * ETag), a change left queued (refused) whose record's other fields were saved takes the saved
 * version's tag: our own save is not someone else's change.
 */
export async function saveQueue(queue, patch, etagOf) {
  const byRecord = new Map()
  for (const c of queue) byRecord.set(c.id, [...(byRecord.get(c.id) ?? []), c])
  const left = []
  for (const [id, changes] of byRecord) {
    let pending = changes.map((c) => ({...c, error: '', theirs: undefined}))
    const etag = changes.find((c) => c.etag)?.etag
    const from = left.length
    for (let attempt = 0; pending.length && attempt < 2; attempt++) {
      const {data, errors} = patchData(pending)
      const failed = pending.filter((c) => errors[c.field]).map((c) => ({...c, error: errors[c.field]}))
      left.push(...failed)
      pending = pending.filter((c) => !errors[c.field])
      if (!pending.length) break
      try {
        const saved = await patch(id, Object.fromEntries(Object.entries(data).filter(([f]) => pending.some((c) => c.field === f))), etag)
        pending = []
        if (etagOf && saved && typeof saved === 'object') {
          const tag = etagOf(saved)
          for (let i = from; i < left.length; i++) left[i] = {...left[i], etag: tag}
        }
      } catch (e) {
        if (e.status === 412 && e.details?.current) {
          const current = e.details.current
          left.push(...pending.map((c) => ({...c, etag: e.details.etag,
            theirs: {value: current.data?.[c.field]}, error: 'changed by someone else since you loaded it: save again to replace their version'})))
          pending = []
          break
        }
        const fields = fieldsOf(e)
        const named = pending.filter((c) => fields[c.field])
        if (!named.length || attempt === 1) {
          left.push(...pending.map((c) => ({...c, error: (fields[c.field] ?? [e.message]).join(', ')})))
          pending = []
        } else {
          left.push(...named.map((c) => ({...c, error: `${c.field} ${fields[c.field].join(', ')}`})))
          pending = pending.filter((c) => !fields[c.field])
        }
      }
    }
  }
  return left
}
