/**
 * The public `subscribe` method (docs/realtime.md "The public subscribe method"), the pure part:
 * which journal entries a visitor's feed carries and what each event says. A visitor receives only
 * the changes of records their own scope selects — `scope_by`'s field of the record as the journal
 * holds it (the row written, or for a delete the row removed) equal to the value the server rendered
 * for this visitor (`{cookie_key}` from their signed cookie, `{ip}` by the server's one rule,
 * `{user_id}` of their sign-in). Nothing the client sends takes part but the table it names.
 */

/** What this module reads of a journal entry (StoredEntry of src/store/journal/repo.ts has these). */
export interface PublicFeedEntry {
  seq: number
  accountId: number
  kind: string
  id: string
  parentId: string | null
  op: string
  gone: boolean
  state: Record<string, unknown> | null
}

export interface PublicFeedFilter {
  accountId: number
  dbId: number
  /** `scope_by`: only records whose `field` holds exactly `value` ('' selects nothing). */
  scope?: {field: string; value: string}
  /** Only this table's records (`table_name`, when the method allows it). */
  tableName?: string
}

/** The record data of a stored row (`data` is JSON text in the row, or already an object). */
export function rowData(row: Record<string, unknown> | null): Record<string, unknown> | null {
  const raw = row?.data
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) return raw as Record<string, unknown>
  if (typeof raw !== 'string') return null
  try {
    const parsed = JSON.parse(raw) as unknown
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** The stored table name of a row ('' and null: no table). */
export function rowTable(row: Record<string, unknown> | null): string | null {
  const t = row?.table_name
  return typeof t === 'string' && t !== '' ? t : null
}

/**
 * Whether a visitor's feed carries `entry`: a record of the db (of the account), of the table when
 * one is named, in the visitor's scope. A scope compares strings only, as the public reads do:
 * a record whose field holds 5 is not in the scope "5".
 */
export function publicFeedMatcher(filter: PublicFeedFilter): (entry: PublicFeedEntry) => boolean {
  const db = String(filter.dbId)
  const scope = filter.scope
  if (scope && scope.value === '') return () => false
  return (e) => {
    if (e.accountId !== filter.accountId || e.kind !== 'record' || e.parentId !== db) return false
    if (filter.tableName !== undefined && rowTable(e.state) !== filter.tableName) return false
    if (!scope) return true
    const data = rowData(e.state)
    return data !== null && Object.hasOwn(data, scope.field) && data[scope.field] === scope.value
  }
}

const jsonOf = (v: unknown): unknown => {
  if (typeof v !== 'string') return v
  try {
    return JSON.parse(v)
  } catch {
    return null
  }
}

/**
 * Whether a change to the database itself ends a visitor's feed: the database removed, its code
 * changed (the feed's address names another db now) or its public methods changed (the method may
 * be off, its scope another) — the client reconnects and the new configuration decides. Other db
 * changes (its name, its schema) leave the feed alone. `config` and `code` are what the feed was
 * opened with.
 */
export function endsPublicFeed(entry: PublicFeedEntry, accountId: number, dbId: number, config: unknown, code: string | null): boolean {
  if (entry.accountId !== accountId || entry.kind !== 'db' || entry.id !== String(dbId)) return false
  if (entry.gone || entry.op === 'delete' || !entry.state) return true
  if ((entry.state.code ?? null) !== code) return true
  return JSON.stringify(jsonOf(entry.state.public_methods) ?? {}) !== JSON.stringify(config ?? {})
}

export type PublicChange = 'create' | 'update' | 'delete'

/**
 * A change as the visitor's event: `create`/`update` with the record as the public `list` answers it
 * (`{id, data, created_at, updated_at}`), `delete` with `{id, table_name}`.
 */
export function publicChange(entry: PublicFeedEntry, view: (row: Record<string, unknown>) => {id: number; data: unknown; created_at: string; updated_at: string}):
  {event: PublicChange; data: unknown} {
  if (entry.gone || entry.op === 'delete') return {event: 'delete', data: {id: Number(entry.id), table_name: rowTable(entry.state)}}
  const r = view(entry.state ?? {})
  return {event: entry.op === 'create' ? 'create' : 'update', data: {id: r.id, data: r.data, created_at: r.created_at, updated_at: r.updated_at}}
}
