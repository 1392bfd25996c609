/**
 * The journal (docs/history.md): every write appends one entry, in the write's own transaction,
 * saying what changed (kind, id, op, the version written), who (actor) and through which door.
 * The names are fixed by shared/spec/decisions.md "History, backups and live feeds".
 */

export const JOURNAL_KINDS = ['prompt', 'dashboard', 'app', 'db', 'record', 'resource', 'cron', 'db_trigger', 'user', 'token'] as const
export type JournalKind = (typeof JOURNAL_KINDS)[number]

/**
 * Kinds recorded as events only (docs/history.md "Users and tokens"): a user added, an API token
 * issued or revoked — who did it, when, through which door; never the token or its hash. Read by
 * admins only; never restored (a token cannot come back: its value is not kept anywhere).
 */
export const EVENT_KINDS = ['user', 'token'] as const satisfies readonly JournalKind[]
export const isEventKind = (kind: JournalKind): boolean => (EVENT_KINDS as readonly string[]).includes(kind)

export const JOURNAL_OPS = ['create', 'update', 'delete', 'restore'] as const
export type JournalOp = (typeof JOURNAL_OPS)[number]

/** How a write reached the server. */
export const DOORS = ['api', 'console', 'cli', 'mcp', 'public', 'flow', 'import'] as const
export type Door = (typeof DOORS)[number]

export const ACTOR_TYPES = ['user', 'visitor', 'flow', 'cron'] as const
export type ActorType = (typeof ACTOR_TYPES)[number]

export interface Actor {
  type: ActorType
  /** A user's id, a visitor's key, a flow process's id, a cron's id (as text); null when unknown. */
  id: string | null
  name: string | null
}

/** One journal entry as the store reads it (src/store/journal/repo.ts), and as the feeds and the db triggers take it. */
export interface StoredEntry {
  /** The bookmark: the entry's place in the order entries commit in (`pos`). */
  seq: number
  accountId: number
  kind: JournalKind
  id: string
  parentId: string | null
  op: JournalOp
  /** The resource does not exist after this entry (a delete, or a restore to before it existed). */
  gone: boolean
  /** The row written, or for `gone` the row removed. */
  state: Record<string, unknown> | null
  summary: string
  door: Door
  client: string | null
  actor: Actor
  requestId: string | null
  at: string
}

/** Who writes and through which door: what each journal entry of a request records. */
export interface JournalWho {
  door: Door
  /** The MCP client's name (door `mcp`), else null. */
  client: string | null
  actor: Actor
  requestId: string | null
}

/** A write made outside any request (a test, an admin command): door `api`, no actor id. */
export const NOBODY: JournalWho = {door: 'api', client: null, actor: {type: 'user', id: null, name: null}, requestId: null}

/**
 * The request headers a client of the API sends to name its door (any caller may send them: they
 * say how a write was made, they grant nothing). Only `cli` and `mcp` are taken from a header; a
 * console session is `console`, a public method `public`, anything else `api`.
 */
export const DOOR_HEADER = 'x-svc-door'
export const CLIENT_HEADER = 'x-svc-client'
export const DECLARED_DOORS: ReadonlySet<string> = new Set(['cli', 'mcp'])
/** A client name is shown, never trusted: printable, bounded. */
export function clientName(value: string | undefined): string | null {
  if (!value) return null
  const clean = value.replace(/[^\x20-\x7e]/g, '').trim().slice(0, 100)
  return clean || null
}

/** One entry as `GET /svc/history.json` lists it. */
export interface JournalEntry {
  /** Sorts in journal order (fixed-width digits of the sequence). */
  bookmark: string
  kind: JournalKind
  id: string
  op: JournalOp
  door: Door
  client: string | null
  actor: Actor
  at: string
  summary: string
  /** Records: the id of their db. */
  db_id?: number
  request_id?: string | null
}

/** One entry as `GET /svc/history/:bookmark.json` answers it. */
export interface JournalEntryDetail extends JournalEntry {
  /** The resource as the API answers it after this write; null for a delete (then `previous`). */
  version: unknown
  /** The version before this write, when the journal holds it (always for a delete). */
  previous: unknown
}

/** A bookmark: the sequence as 16 digits (strings sort as numbers do). */
export const BOOKMARK_DIGITS = 16
export const bookmarkOf = (seq: number) => String(seq).padStart(BOOKMARK_DIGITS, '0')
/** The sequence of a bookmark (leading zeros optional), or null when it is not one. */
export function seqOf(bookmark: string): number | null {
  if (!/^\d{1,16}$/.test(bookmark)) return null
  const n = Number(bookmark)
  return Number.isSafeInteger(n) && n > 0 ? n : null
}

/** Retention (docs/history.md): entries older than this go, but each resource keeps its newest `minVersions`. */
export const RETENTION = {days: 30, minVersions: 10}
