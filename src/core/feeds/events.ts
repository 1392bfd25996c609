/**
 * Live feeds (docs/realtime.md), the pure part: which journal entries a feed carries, how an entry
 * becomes a Server-Sent Event, how a `Last-Event-ID` reads, and the SSE framing. Names fixed by
 * shared/spec/decisions.md "Live feeds": events `create`, `update`, `delete` with the record as the
 * records API shapes it (`{id, table_name}` for a delete), `resync`, and `id:` the journal bookmark.
 */
import {bookmarkOf, seqOf, type JournalEntry, type StoredEntry} from '../journal/types.js'

/** A journal entry as the store reads it. */
export type FeedEntry = StoredEntry

export type ChangeName = 'create' | 'update' | 'delete'

/** One event of a feed: `event:`, `id:` (a bookmark) and `data:` (JSON). */
export interface FeedEvent {
  event: ChangeName | 'resync' | 'change'
  id: string
  data: unknown
}

/**
 * The event of a change: a create, an update, or a delete (also a restore that removed the record);
 * a restore that wrote a version is an `update` (of a record the client may not hold: a deleted
 * record back). `view` shapes a kept row as the records API answers it.
 */
export function changeEvent(entry: FeedEntry, view: (row: Record<string, unknown>) => unknown): FeedEvent {
  const id = bookmarkOf(entry.seq)
  const row = entry.state ?? {}
  if (entry.gone || entry.op === 'delete') {
    const tableName = typeof row.table_name === 'string' && row.table_name !== '' ? row.table_name : null
    return {event: 'delete', id, data: {id: Number(entry.id), table_name: tableName}}
  }
  return {event: entry.op === 'create' ? 'create' : 'update', id, data: view(row)}
}

/** Which records a private feed carries: a db's, optionally of one table or one record. */
export interface RecordFilter {
  accountId: number
  dbId: number
  /** Only this table's records, by the table each change wrote (a record moved to another table is not seen leaving this one: docs/realtime.md). */
  tableName?: string
  recordId?: number
}

/** Whether `entry` is a change of a record `filter` selects. */
export function recordMatcher(filter: RecordFilter): (entry: FeedEntry) => boolean {
  const db = String(filter.dbId)
  const record = filter.recordId === undefined ? undefined : String(filter.recordId)
  return (e) => {
    if (e.accountId !== filter.accountId || e.kind !== 'record' || e.parentId !== db) return false
    if (record !== undefined && e.id !== record) return false
    if (filter.tableName !== undefined) {
      const stored = e.state?.table_name
      return (typeof stored === 'string' ? stored : '') === filter.tableName
    }
    return true
  }
}

/** The entry as `GET /svc/history.json` lists it (decisions.md "Journal"). */
export function historyEntryOf(e: FeedEntry): JournalEntry {
  return {
    bookmark: bookmarkOf(e.seq), kind: e.kind, id: e.id, op: e.op, door: e.door, client: e.client, actor: e.actor, at: e.at,
    summary: e.summary, ...(e.kind === 'record' && e.parentId !== null ? {db_id: Number(e.parentId)} : {}), request_id: e.requestId,
  }
}

/**
 * Where a feed resumes: the `Last-Event-ID` header, else a `last_event_id` query (a client without
 * EventSource). `null`: none (the feed starts now); `invalid`: something that is not a bookmark
 * (answered with `resync`: whatever the client holds may be stale).
 */
export function resumePoint(header: string | undefined | null, query: string | undefined | null): number | null | 'invalid' {
  const raw = (header ?? query ?? '').trim()
  if (raw === '') return null
  return seqOf(raw) ?? 'invalid'
}

/** A line of an SSE field may hold no line break (each would start a new field). */
const oneLine = (value: string) => value.replace(/[\r\n\0]/g, '')

/** One event as SSE text (`event:`, `id:`, one `data:` per line of the JSON, a blank line). */
export function sseFrame(e: {event?: string; id?: string; data?: unknown}): string {
  let out = ''
  if (e.event) out += `event: ${oneLine(e.event)}\n`
  if (e.id !== undefined) out += `id: ${oneLine(e.id)}\n`
  if (e.data !== undefined) {
    for (const line of JSON.stringify(e.data).split(/\r\n|\r|\n/)) out += `data: ${line}\n`
  }
  return `${out}\n`
}

/**
 * A heartbeat: a comment line (ignored by EventSource) that keeps proxies from closing an idle
 * stream; with `id`, the client's last event id moves on (an `id:` without data dispatches nothing
 * but is remembered), so a reconnect after a long quiet time resumes from there.
 */
export function sseHeartbeat(id?: string): string {
  return `${id === undefined ? '' : `id: ${oneLine(id)}\n`}: heartbeat\n\n`
}

/** Why a feed asks its client to read everything again. */
export const RESYNC_REASONS = {
  retention: 'the feed cannot resume from this bookmark: the journal no longer holds what changed since (past retention); read the data again',
  unknown: 'the feed cannot resume from this bookmark: it is not one this server wrote; read the data again',
  invalid: 'Last-Event-ID is not a bookmark; read the data again',
  slow: 'the client read events too slowly and fell too far behind; reconnect and read the data again',
  lagging: 'the server fell behind reading the journal; reconnect and read the data again',
} as const
