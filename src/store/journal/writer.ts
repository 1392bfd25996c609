/**
 * Appending to the journal, in the transaction of the write it records (docs/history.md).
 *
 * Who writes (actor, door, request id) is the request's: the HTTP layer runs each request inside
 * `context.run(who, ...)`, and a repository captures `context.current()` when a write is called
 * (before it is queued: SQLite's group commit runs a body later, outside the request).
 *
 * Order under N instances (PostgreSQL): a sequence is handed out when a row is inserted, not when
 * its transaction commits, so a reader resuming after bookmark N could miss an entry numbered N-1
 * that commits later. The bookmark is therefore `pos`, drawn as the transaction commits (a deferred
 * trigger, migrations/journal.ts PG_JOURNAL_POS): entries commit in the order of their positions,
 * and a reader that has seen N has seen everything below N. The insert sets a provisional `pos`
 * (the next number: final on SQLite, whose one writer commits in insert order; replaced at commit
 * on PostgreSQL, and never seen outside the transaction before).
 */
import {AsyncLocalStorage} from 'node:async_hooks'
import {type JournalKind, type JournalOp, type JournalWho, NOBODY} from '../../core/journal/types.js'
import type {TxBody, TxSql} from '../sql/port.js'
import {JOURNAL_TABLES, stateText} from './tables.js'

/** Who is writing: one per store (no state shared between two servers of one process). */
export class JournalContext {
  private readonly storage = new AsyncLocalStorage<JournalWho>()
  run<T>(who: JournalWho, fn: () => T): T {
    return this.storage.run(who, fn)
  }
  current(): JournalWho {
    return this.storage.getStore() ?? NOBODY
  }
}

export interface Append {
  accountId: number
  kind: JournalKind
  id: string | number
  op: JournalOp
  /** The row written (a delete: the row deleted), as SELECT * reads it. */
  row: Record<string, unknown>
  /** The row is gone after this write (a delete, or a restore to before the resource existed). */
  gone?: boolean
  /** A record's db. */
  parentId?: number | string | null
  /** Appended to the summary (what changed, in a few words). */
  detail?: string
}

const INSERT = `INSERT INTO journal (pos, account_id, kind, resource_id, parent_id, op, gone, state, summary, door, client, actor_type, actor_id,
  actor_name, request_id, at) VALUES ((SELECT coalesce(max(pos), 0) + 1 FROM journal), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`

const OP_WORDS: Record<JournalOp, string> = {create: 'created', update: 'updated', delete: 'deleted', restore: 'restored'}

/** The one-line summary of an entry. */
export function summaryOf(e: Pick<Append, 'kind' | 'op' | 'row' | 'gone' | 'detail'>): string {
  const label = JOURNAL_TABLES[e.kind].label(e.row)
  const op = e.op === 'restore' && e.gone ? 'removed (restored to before it existed)' : e.kind === 'token' && e.op === 'delete' ? 'revoked' : OP_WORDS[e.op]
  return `${e.kind} ${label} ${op}${e.detail ? `: ${e.detail}` : ''}`.slice(0, 500)
}

/** Appends one entry to the write's transaction (see above). Answers its row's `seq` (not its bookmark: that is drawn at commit). */
export function* appendEntry(q: TxSql, who: JournalWho, e: Append): TxBody<number> {
  const state = stateText(e.kind, e.row)
  const row = yield* q.get<{seq: number}>(INSERT, [
    e.accountId, e.kind, String(e.id), e.parentId === undefined || e.parentId === null ? null : String(e.parentId), e.op, e.gone ? 1 : 0,
    state, summaryOf(e), who.door, who.client, who.actor.type, who.actor.id, who.actor.name, who.requestId, new Date().toISOString(),
  ])
  return Number(row!.seq)
}

/** Reads a row of a journaled table in the transaction (after its write), for the entry. */
export function* rowOf(q: TxSql, kind: JournalKind, id: string | number): TxBody<Record<string, unknown> | undefined> {
  return yield* q.get<Record<string, unknown>>(`SELECT * FROM ${JOURNAL_TABLES[kind].table} WHERE id = ?`, [id])
}

/** Reads a row, then appends its entry: what most writes do last. */
export function* appendRow(q: TxSql, who: JournalWho, e: Omit<Append, 'row'> & {row?: Record<string, unknown>}): TxBody<void> {
  const row = e.row ?? (yield* rowOf(q, e.kind, e.id))
  if (row) yield* appendEntry(q, who, {...e, row})
}
