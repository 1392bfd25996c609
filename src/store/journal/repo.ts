/**
 * The journal's reads, restores and retention (docs/history.md), written once over the SQL port.
 * Writes append to it themselves (writer.ts), in their own transactions.
 */
import {isSvcError, notFound, validation} from '../../core/errors.js'
import {type Door, EVENT_KINDS, type JournalKind, type JournalOp, type JournalWho, type StoredEntry} from '../../core/journal/types.js'
import type {SearchUpkeep} from '../dbs/types.js'
import {isRowId, type LongRead, type SqlPort, type TxBody, type TxSql} from '../sql/port.js'
import {JOURNAL_TABLES, type StateRow} from './tables.js'
import {JournalSignal} from './signal.js'
import {appendEntry, JournalContext} from './writer.js'

/** One entry as the store reads it (its type lives in core: the feeds and the db triggers take it too). */
export type {StoredEntry} from '../../core/journal/types.js'

export interface JournalFilter {
  kinds?: JournalKind[]
  id?: string
  /** Records of this db. */
  parentId?: string
  op?: JournalOp
  door?: Door
  client?: string
  actorId?: string
  since?: string
  until?: string
  /** Entries before this sequence (paging, newest first). */
  before?: number
  limit: number
}

export interface RestoreSince {
  since: string
  /** Why the caller may not restore this resource (`row`: the version it would get, or the one it has), or null. */
  may?: (kind: JournalKind, row: StateRow | null) => string | null
  door?: Door
  client?: string
  actorId?: string
  kind?: JournalKind
  dryRun?: boolean
}

export interface RestoreOutcome {
  restored: {kind: JournalKind; id: string; bookmark: number | null; to: 'version' | 'absent'}[]
  conflicts: {kind: JournalKind; id: string; reason: string; fields?: unknown}[]
}

interface EntryRow {
  seq: number; pos: number; account_id: number; kind: string; resource_id: string; parent_id: string | null; op: string; gone: number; state: string | null
  summary: string; door: string; client: string | null; actor_type: string; actor_id: string | null; actor_name: string | null
  request_id: string | null; at: string
}

const toEntry = (r: EntryRow): StoredEntry => ({
  seq: Number(r.pos), accountId: Number(r.account_id), kind: r.kind as JournalKind, id: r.resource_id, parentId: r.parent_id,
  op: r.op as JournalOp, gone: !!Number(r.gone), state: r.state === null ? null : (JSON.parse(r.state) as StateRow), summary: r.summary,
  door: r.door as Door, client: r.client, actor: {type: r.actor_type as JournalWho['actor']['type'], id: r.actor_id, name: r.actor_name},
  requestId: r.request_id, at: r.at,
})

/** Entries one pruning statement removes; then a turn of the event loop. */
export const PRUNE_SLICE = 250

export class SqlJournalRepo {
  constructor(private readonly sql: SqlPort, readonly context: JournalContext, private readonly upkeep?: () => SearchUpkeep | undefined,
    /** Emitted when entries may have been appended (signal.ts): what the live feeds wait for. */
    readonly signal: JournalSignal = new JournalSignal(),
    /** Where a filtered list runs: a filter no index answers (door, client, actor, op since a time) walks
     *  every entry in its range — 1.9 s at 1M on SQLite — so it goes to a reader thread when there are some. */
    private readonly longRead?: LongRead) {}

  async list(accountId: number, f: JournalFilter): Promise<StoredEntry[]> {
    const where = ['account_id = ?']
    const args: unknown[] = [accountId]
    if (f.kinds?.length === 1) (where.push('kind = ?'), args.push(f.kinds[0]))
    else if (f.kinds?.length) (where.push(this.sql.dialect.inArray('kind', 'text')), args.push(this.sql.dialect.arrayParam(f.kinds)))
    if (f.id !== undefined) (where.push('resource_id = ?'), args.push(f.id))
    if (f.parentId !== undefined) (where.push('parent_id = ?'), args.push(f.parentId))
    if (f.op !== undefined) (where.push('op = ?'), args.push(f.op))
    if (f.door !== undefined) (where.push('door = ?'), args.push(f.door))
    if (f.client !== undefined) (where.push('client = ?'), args.push(f.client))
    if (f.actorId !== undefined) (where.push('actor_id = ?'), args.push(f.actorId))
    if (f.since !== undefined) {
      where.push('at >= ?', 'pos >= ?')
      args.push(f.since, await this.firstSince(f.since))
    }
    if (f.until !== undefined) (where.push('at <= ?'), args.push(f.until))
    if (f.before !== undefined) (where.push('pos < ?'), args.push(f.before))
    const select = `SELECT * FROM journal WHERE ${where.join(' AND ')} ORDER BY pos DESC LIMIT ?`
    const rows = this.longRead ? await this.longRead<EntryRow>(select, [...args, f.limit], String(accountId)) : await this.sql.all<EntryRow>(select, [...args, f.limit])
    return rows.map(toEntry)
  }

  async get(accountId: number, seq: number): Promise<StoredEntry | null> {
    if (!isRowId(seq)) return null
    const row = await this.sql.get<EntryRow>('SELECT * FROM journal WHERE account_id = ? AND pos = ?', [accountId, seq])
    return row ? toEntry(row) : null
  }

  /** The entry of a journal row (by its `seq`: appendEntry's answer), once committed. */
  private async byRow(rowSeq: number): Promise<StoredEntry | null> {
    const row = await this.sql.get<EntryRow>('SELECT * FROM journal WHERE seq = ?', [rowSeq])
    return row ? toEntry(row) : null
  }

  /** The entry of the same resource just before `seq` (its previous version), if the journal still holds it. */
  async previous(e: StoredEntry): Promise<StoredEntry | null> {
    const row = await this.sql.get<EntryRow>(
      'SELECT * FROM journal WHERE account_id = ? AND kind = ? AND resource_id = ? AND pos < ? ORDER BY pos DESC LIMIT 1',
      [e.accountId, e.kind, e.id, e.seq])
    return row ? toEntry(row) : null
  }

  /** Entries of every account after `seq` in journal order (a reader resuming from a bookmark: entries commit in this order). */
  async after(seq: number, limit: number): Promise<StoredEntry[]> {
    return (await this.sql.all<EntryRow>('SELECT * FROM journal WHERE pos > ? ORDER BY pos LIMIT ?', [seq, limit])).map(toEntry)
  }

  /** Entries of one account after `seq` up to `upTo` (both bookmarks), in journal order: a feed catching up reads its account's entries only. */
  async afterInAccount(accountId: number, seq: number, upTo: number, limit: number): Promise<StoredEntry[]> {
    return (await this.sql.all<EntryRow>('SELECT * FROM journal WHERE account_id = ? AND pos > ? AND pos <= ? ORDER BY pos LIMIT ?',
      [accountId, seq, upTo, limit])).map(toEntry)
  }

  /** The newest bookmark of the journal (every account), 0 when it is empty. */
  async head(): Promise<number> {
    const row = await this.sql.get<{pos: number | null}>('SELECT max(pos) AS pos FROM journal')
    return row?.pos === null || row?.pos === undefined ? 0 : Number(row.pos)
  }

  /** When the entry of bookmark `pos` (of any account) was written, or null when the journal no longer holds it. */
  async timeAt(pos: number): Promise<string | null> {
    if (!isRowId(pos)) return null
    const row = await this.sql.get<{at: string}>('SELECT at FROM journal WHERE pos = ?', [pos])
    return row?.at ?? null
  }

  /**
   * The first sequence written at or after `since`: a filter on time reads from there, not through
   * the whole account (a door with no entry since an hour read every entry). An entry's time is taken
   * as it is appended and its place drawn as it commits, so times grow with places up to the length
   * of a transaction (and, across
   * instances, the instances' clocks): entries up to a minute older than `since` are read too, and the time filter decides.
   */
  private async firstSince(since: string): Promise<number> {
    const margin = new Date(Date.parse(since) - 60_000).toISOString()
    const row = await this.sql.get<{pos: number}>('SELECT pos FROM journal WHERE at >= ? ORDER BY at, pos LIMIT 1', [margin])
    return row ? Number(row.pos) : Number.MAX_SAFE_INTEGER
  }

  /** The newest state the journal holds of a resource. */
  private async lastState(accountId: number, kind: JournalKind, id: string): Promise<StateRow | null> {
    const row = await this.sql.get<EntryRow>('SELECT * FROM journal WHERE account_id = ? AND kind = ? AND resource_id = ? ORDER BY pos DESC LIMIT 1', [accountId, kind, id])
    return row ? toEntry(row).state : null
  }

  /** A kept row as the API answers the resource. */
  view(kind: JournalKind, row: StateRow): unknown {
    return JOURNAL_TABLES[kind].view(row)
  }

  /** The resource as stored now (null when it does not exist for the API). */
  async current(accountId: number, kind: JournalKind, id: string): Promise<StateRow | null> {
    const t = JOURNAL_TABLES[kind]
    const row = await this.sql.get<StateRow>(`SELECT * FROM ${t.table} WHERE account_id = ? AND id = ?${t.live ? ` AND ${t.live}` : ''}`, [accountId, id])
    return row ?? null
  }

  /**
   * Restores the resource of entry `seq` to that entry's version (a gone entry: the version it
   * removed). `check` sees the current version as the API answers it (null when absent) and may
   * throw (If-Match). Answers the restore's own entry, or null when there is no such entry.
   */
  async restore(accountId: number, seq: number, who: JournalWho, check?: (current: unknown) => void): Promise<StoredEntry | null> {
    const entry = await this.get(accountId, seq)
    if (!entry) return null
    const written = await this.restoreTo(accountId, entry.kind, entry.id, entry.state, who, check)
    return written === null ? entry : this.byRow(written)
  }

  /** Every resource changed since `since` by the matching writes returns to its version just before `since`. */
  async restoreSince(accountId: number, r: RestoreSince, who: JournalWho): Promise<RestoreOutcome> {
    // Users and tokens are events (never restored): an account's restore leaves them as they are.
    const where = ['account_id = ?', 'at >= ?', 'pos >= ?', `kind NOT IN (${EVENT_KINDS.map((k) => `'${k}'`).join(', ')})`]
    const args: unknown[] = [accountId, r.since, await this.firstSince(r.since)]
    if (r.door !== undefined) (where.push('door = ?'), args.push(r.door))
    if (r.client !== undefined) (where.push('client = ?'), args.push(r.client))
    if (r.actorId !== undefined) (where.push('actor_id = ?'), args.push(r.actorId))
    if (r.kind !== undefined) (where.push('kind = ?'), args.push(r.kind))
    const touched = await this.sql.all<{kind: JournalKind; resource_id: string; first: number}>(
      `SELECT kind, resource_id, min(pos) AS first FROM journal WHERE ${where.join(' AND ')} GROUP BY kind, resource_id ORDER BY min(pos)`, args)
    const plans: {kind: JournalKind; id: string; target: StateRow | null}[] = []
    const out: RestoreOutcome = {restored: [], conflicts: []}
    for (const t of touched) {
      const before = await this.sql.get<EntryRow>(
        'SELECT * FROM journal WHERE account_id = ? AND kind = ? AND resource_id = ? AND at < ? ORDER BY pos DESC LIMIT 1',
        [accountId, t.kind, t.resource_id, r.since])
      if (before) {
        const e = toEntry(before)
        plans.push({kind: t.kind, id: t.resource_id, target: e.gone ? null : e.state})
        continue
      }
      const first = await this.sql.get<EntryRow>('SELECT * FROM journal WHERE pos = ?', [t.first])
      if (first?.op === 'create') plans.push({kind: t.kind, id: t.resource_id, target: null})
      else out.conflicts.push({kind: t.kind, id: t.resource_id, reason: 'the journal holds no version of it before that time (older than the journal or past retention)'})
    }
    if (r.may) {
      for (let i = plans.length - 1; i >= 0; i--) {
        const p = plans[i]!
        const why = r.may(p.kind, p.target ?? (await this.lastState(accountId, p.kind, p.id)))
        if (why) (out.conflicts.push({kind: p.kind, id: p.id, reason: why}), plans.splice(i, 1))
      }
    }
    // Dbs come back before their records; records go before their dbs.
    const rank = (p: (typeof plans)[number]) => (p.kind === 'db' ? (p.target ? 0 : 2) : 1)
    plans.sort((a, b) => rank(a) - rank(b))
    for (const p of plans) {
      if (r.dryRun) {
        out.restored.push({kind: p.kind, id: p.id, bookmark: null, to: p.target ? 'version' : 'absent'})
        continue
      }
      try {
        const row = await this.restoreTo(accountId, p.kind, p.id, p.target, who)
        if (row !== null) out.restored.push({kind: p.kind, id: p.id, bookmark: (await this.byRow(row))!.seq, to: p.target ? 'version' : 'absent'})
      } catch (error) {
        if (!isSvcError(error) || error.status !== 422) throw error
        out.conflicts.push({kind: p.kind, id: p.id, reason: error.message, fields: error.details})
      }
    }
    return out
  }

  /** Writes `target` back (null: removes the resource) in one transaction with its journal entry; the entry's sequence, null when nothing changed. */
  private async restoreTo(accountId: number, kind: JournalKind, id: string, target: StateRow | null, who: JournalWho, check?: (current: unknown) => void): Promise<number | null> {
    const t = JOURNAL_TABLES[kind]
    if (t.event) throw validation({kind: ['users and tokens are recorded as events: they cannot be restored']})
    const {forUpdate, isUniqueViolation} = this.sql.dialect
    const upkeep = kind === 'record' ? this.upkeep?.() : undefined
    try {
      const seq = await this.sql.tx(function* (q): TxBody<number | null> {
        const row = yield* q.get<StateRow>(`SELECT * FROM ${t.table} WHERE account_id = ? AND id = ?${forUpdate}`, [accountId, id])
        const live = row && (!t.live || row.deleted_at === null || row.deleted_at === undefined) ? row : null
        check?.(live ? t.view(live) : null)
        if (target === null) {
          if (!live) return null
          if (kind === 'db') yield* q.run('UPDATE dbs SET deleted_at = ?, code = NULL WHERE account_id = ? AND id = ?', [new Date().toISOString(), accountId, id])
          else yield* q.run(`DELETE FROM ${t.table} WHERE account_id = ? AND id = ?`, [accountId, id])
          if (upkeep) yield* upkeep.updated(q)
          return yield* appendEntry(q, who, {accountId, kind, id, op: 'restore', row: live, gone: true, parentId: live.db_id as number | undefined})
        }
        yield* writeBack(q, kind, accountId, target, row ?? null)
        if (upkeep) yield* upkeep.updated(q)
        const after = (yield* q.get<StateRow>(`SELECT * FROM ${t.table} WHERE account_id = ? AND id = ?`, [accountId, id]))!
        return yield* appendEntry(q, who, {accountId, kind, id, op: 'restore', row: after, parentId: after.db_id as number | undefined})
      })
      upkeep?.written()
      return seq
    } catch (error) {
      if (isUniqueViolation(error)) throw t.taken(target ?? {})
      if (kind === 'record' && this.sql.dialect.isForeignKeyViolation(error)) throw t.taken(target ?? {})
      throw error
    }
  }

  /**
   * Removes one slice of entries older than `before` (ISO time), keeping each existing resource's
   * newest `minVersions`; walks the journal in sequence order from `after`. Answers the removed count and
   * where the next slice starts (null when the walk reached entries younger than `before`).
   */
  async pruneSlice(before: string, minVersions: number, after: number, slice = PRUNE_SLICE): Promise<{removed: number; next: number | null}> {
    const rows = await this.sql.all<{pos: number; at: string}>('SELECT pos, at FROM journal WHERE pos > ? ORDER BY pos LIMIT ?', [after, slice])
    const old = rows.filter((r) => r.at < before)
    if (old.length === 0) return {removed: 0, next: null}
    const last = Number(old[old.length - 1]!.pos)
    // Past the retention an entry goes when its resource has `minVersions` newer ones, or when the
    // resource itself is gone (its newest entry a delete past the retention, or a record whose db was purged).
    const same = 'n.account_id = journal.account_id AND n.kind = journal.kind AND n.resource_id = journal.resource_id'
    // The candidates by position (a condition on the time would let the planner walk the time index through every old entry).
    const {inArray, arrayParam} = this.sql.dialect
    // The newest entry of the journal always stays: SQLite numbers the next entry after the greatest
    // one held, and a number handed out again would be a bookmark a feed reader has already passed.
    const removed = await this.sql.run(
      `DELETE FROM journal WHERE ${inArray('pos', 'bigint')} AND pos < (SELECT max(n.pos) FROM journal n) AND (
        (SELECT n.pos FROM journal n WHERE ${same} AND n.pos > journal.pos ORDER BY n.pos LIMIT 1 OFFSET ?) IS NOT NULL
        OR (SELECT n.gone FROM journal n WHERE ${same} ORDER BY n.pos DESC LIMIT 1) = 1
          AND (SELECT n.at FROM journal n WHERE ${same} ORDER BY n.pos DESC LIMIT 1) < ?
        OR journal.kind = 'record' AND NOT EXISTS (SELECT 1 FROM dbs d WHERE d.id = CAST(journal.parent_id AS BIGINT)))`,
      [arrayParam(old.map((r) => Number(r.pos))), Math.max(0, minVersions - 1), before])
    return {removed, next: old.length < rows.length ? null : last}
  }
}

/** Upserts a kept row: its columns as kept, secrets fresh on a re-insert (kept on an update), and the kind's restore settings. */
function* writeBack(q: TxSql, kind: JournalKind, accountId: number, target: StateRow, existing: StateRow | null): TxBody<void> {
  const t = JOURNAL_TABLES[kind]
  if (Number(target.account_id) !== accountId) throw notFound()
  const values: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(target)) {
    if (k.startsWith('has_') && k.slice(4) in t.secrets) continue
    values[k] = v
  }
  Object.assign(values, t.restoreSet ?? {})
  // The kept row leaves its null columns out: every column of the row it replaces that it does not hold becomes null.
  if (existing) {
    for (const k of Object.keys(existing)) {
      if (!(k in values) && !(k in t.secrets) && !t.omit.includes(k) && k !== 'id') values[k] = null
    }
  }
  if (kind === 'app' && (yield* q.get('SELECT 1 FROM apps WHERE url_code = ? AND id != ?', [target.url_code, target.id]))) throw t.taken(target)
  if (kind === 'db' && target.code !== null && (yield* q.get('SELECT 1 FROM dbs WHERE account_id = ? AND code = ? AND id != ?', [accountId, target.code, target.id]))) {
    throw t.taken(target)
  }
  if (kind === 'prompt' && (yield* q.get('SELECT 1 FROM prompts WHERE account_id = ? AND scope = ? AND coalesce(scope_id, 0) = ? AND code = ? AND id != ?',
    [accountId, target.scope, target.scope_id ?? 0, target.code, target.id]))) throw t.taken(target)
  if (kind === 'record' && !(yield* q.get('SELECT 1 FROM dbs WHERE account_id = ? AND id = ? AND deleted_at IS NULL', [accountId, target.db_id]))) throw t.taken(target)
  if (kind === 'dashboard' && target.is_default) {
    yield* q.run('UPDATE dashboards SET is_default = 0 WHERE account_id = ? AND context = ? AND is_default = 1 AND id != ?', [accountId, target.context, target.id])
  }
  const columns = Object.keys(values)
  // Column names come from the store's own rows (SELECT *), never from a request; checked all the same.
  if (!columns.every((c) => /^[a-z_][a-z0-9_]*$/.test(c))) throw new Error('journal: a kept row has a column that is not a plain name')
  if (existing) {
    yield* q.run(`UPDATE ${t.table} SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE account_id = ? AND id = ?`,
      [...columns.map((c) => values[c]), accountId, target.id])
    return
  }
  for (const [k, fresh] of Object.entries(t.secrets)) values[k] = fresh()
  const all = Object.keys(values)
  yield* q.run(`INSERT INTO ${t.table} (${all.join(', ')}) VALUES (${all.map(() => '?').join(', ')})`, all.map((c) => values[c]))
}
