/**
 * Restoring to a point in time (`svc admin restore FILE --at T`, docs/backups.md "Point in time").
 *
 * The model: an archive carries the journal up to its snapshot, and every journal entry holds the
 * whole row its write left (a delete: the row it removed). So one archive taken AFTER T is rolled
 * BACK to T as it is restored: each resource the journal shows changed after T is written as its
 * last version at or before T (or left out: it did not exist then), rows deleted after T come back
 * from their entries, and the journal's entries after T are left out. Nothing but the archive is
 * needed, and the restore stays one pass into one transaction.
 *
 * What it can answer: T from the time the journal describes every resource changed since T (a
 * resource whose oldest kept entry is neither its creation nor its deletion has no known version
 * before that entry; retention removes entries older than its period) up to a moment before the
 * snapshot (a write is timed as it is made and commits a moment later). Outside that range the
 * restore is refused before the target is touched, naming the range.
 *
 * Two reads of the archive's journal plan it (the touched resources, then their versions at T):
 * memory holds the keys of the journal's resources and the versions of those changed since T,
 * never the journal itself.
 */
import {SvcError} from '../../core/errors.js'
import {isEventKind, RETENTION, type JournalKind} from '../../core/journal/types.js'
import type {CellValue} from '../../store/backup/types.js'
import {JOURNAL_TABLES, type StateRow} from '../../store/journal/tables.js'
import {readArchive, type ArchiveHeader} from './archive.js'

/** A write is timed as its entry is appended and commits a moment later: T must be this much before the snapshot. */
export const SETTLE_MS = 2000

/** The journaled kinds by the table their rows live in. */
const KIND_OF_TABLE: ReadonlyMap<string, JournalKind> = new Map(
  (Object.entries(JOURNAL_TABLES) as [JournalKind, (typeof JOURNAL_TABLES)[JournalKind]][]).map(([kind, t]) => [t.table, kind]))

/**
 * Rows of tables the journal does not record that belong to a journaled resource (their foreign
 * keys): left out when the resource did not exist at T (`drop`), or their reference cleared (`null`).
 */
const CHILDREN: Readonly<Record<string, {column: string; kind: JournalKind; action: 'drop' | 'null'}>> = {
  db_records: {column: 'db_id', kind: 'db', action: 'drop'},
  db_reindexes: {column: 'db_id', kind: 'db', action: 'drop'},
  app_assets: {column: 'app_id', kind: 'app', action: 'drop'},
  dashboard_selections: {column: 'dashboard_id', kind: 'dashboard', action: 'drop'},
  flow_processes: {column: 'flow_id', kind: 'resource', action: 'null'},
}

interface JournalRow {
  pos: number
  kind: JournalKind
  id: string
  op: string
  gone: boolean
  state: string | null
  at: string
}

export interface PointInTimeRange {
  /** The earliest T the archive answers (null: none). */
  from: string | null
  /** The latest. */
  until: string
}

export interface PointInTimePlan {
  at: string
  range: PointInTimeRange
  /** Each table's rows that are not as the archive holds them: id → the row at T, or null (absent at T). */
  targets: Map<string, Map<string, StateRow | null>>
  /** Resources absent at T, by kind (their children go too). */
  absent: Map<JournalKind, Set<string>>
  /** Resources written back to their version at T, by kind, and removed (created since T). */
  changed: Record<string, {version: number; absent: number}>
  /** Journal entries after T (left out). */
  laterEntries: number
}

const keyOf = (kind: string, id: string) => `${kind}\u0000${id}`

/** Calls `each` with every journal entry of the archive, in the archive's order (per resource: its entries' order), then stops reading. */
async function eachEntry(file: string, each: (row: JournalRow) => void): Promise<void> {
  const lines = readArchive(file, 1000)
  let columns: string[] | undefined
  try {
    for await (const line of lines) {
      if (line.kind === 'table') columns = line.name === 'journal' ? line.columns : undefined
      else if (line.kind === 'rows' && columns) {
        const c = columns
        const [pos, kind, id, op, gone, state, at] = ['pos', 'kind', 'resource_id', 'op', 'gone', 'state', 'at'].map((n) => c.indexOf(n))
        for (const r of line.rows) {
          if (!Object.hasOwn(JOURNAL_TABLES, String(r[kind!])) || typeof r[at!] !== 'string') throw damaged('a journal entry of an unknown kind or time')
          // Users and tokens are events (no token hash kept): they come back as the archive holds them, as the tables the journal does not record.
          if (isEventKind(r[kind!] as JournalKind)) continue
          each({pos: Number(r[pos!]), kind: r[kind!] as JournalKind, id: String(r[id!]), op: String(r[op!]), gone: !!Number(r[gone!]),
            state: r[state!] as string | null, at: String(r[at!])})
        }
      } else if (line.kind === 'end' && columns) break
    }
  } finally {
    await lines.return(undefined)
  }
}

const damaged = (detail: string) => new SvcError('usage', 0, `the archive is damaged: ${detail}; nothing was written`, undefined,
  'use another archive (svc admin backup verify FILE checks one without restoring it)')

/** The state a resource's entry says it had (the version written, or for a removal the version removed). */
function parse(state: string | null): StateRow | null {
  if (state === null) return null
  try {
    const row = JSON.parse(state) as unknown
    if (row && typeof row === 'object' && !Array.isArray(row)) return row as StateRow
  } catch {
    // below
  }
  throw damaged('a journal entry holds no row')
}

function rangeMessage(range: PointInTimeRange): string {
  return range.from === null
    ? 'this archive answers no earlier time: its journal holds no entries'
    : `this archive answers times from ${range.from} to ${range.until}`
}

/**
 * Plans the restore of `file` (whose header is `header`) at `at` (ISO 8601): refused (SvcError,
 * before anything is written) when the archive cannot answer that time, naming the times it can.
 */
export async function planPointInTime(file: string, header: ArchiveHeader, at: string): Promise<PointInTimePlan> {
  if (!Number.isFinite(Date.parse(header.created_at))) throw damaged('its header has no time')
  const until = new Date(Date.parse(header.created_at) - SETTLE_MS).toISOString()
  const horizon = new Date(Date.parse(header.created_at) - RETENTION.days * 86_400_000).toISOString()
  if (!header.migrations.includes(70)) {
    throw new SvcError('usage', 0, 'the archive carries no journal (it comes from an svc before the journal): it answers no point in time; nothing was written')
  }
  // First read: the earliest time answered, and the resources changed after T.
  const seen = new Set<string>()
  const touched = new Set<string>()
  // Before the journal's oldest entry the journal may not have existed; before the oldest entry of a
  // resource whose history starts with neither its creation nor its removal, its version is unknown.
  let oldest: string | null = null
  let unknownBefore: string | null = null
  let laterEntries = 0
  await eachEntry(file, (e) => {
    if (oldest === null || e.at < oldest) oldest = e.at
    const key = keyOf(e.kind, e.id)
    if (!seen.has(key)) {
      seen.add(key)
      if (e.op !== 'create' && !e.gone && (unknownBefore === null || e.at > unknownBefore)) unknownBefore = e.at
    }
    if (e.at > at) {
      touched.add(key)
      laterEntries++
    }
  })
  seen.clear()
  const earliest = oldest === null ? null : [oldest, unknownBefore ?? oldest, horizon].sort().at(-1)!
  const range: PointInTimeRange = {from: earliest, until}
  if (at > until) {
    throw new SvcError('usage', 0, `--at ${at} is after the archive was made (${header.created_at}): ${rangeMessage(range)}; nothing was written`,
      undefined, 'a later time needs a later archive (one archive rolls back to a time before it, never forward)')
  }
  if (earliest === null || at < earliest) {
    throw new SvcError('usage', 0, `--at ${at} is before what the archive's journal describes: ${rangeMessage(range)}; nothing was written`,
      undefined, 'an earlier time needs an earlier archive (the journal keeps 30 days, and each resource its 10 newest versions)')
  }
  // Second read: for each resource changed after T, its last entry at or before T and its first after.
  const before = new Map<string, JournalRow>()
  const after = new Map<string, JournalRow>()
  if (touched.size) {
    await eachEntry(file, (e) => {
      const key = keyOf(e.kind, e.id)
      if (!touched.has(key)) return
      if (e.at <= at) before.set(key, e)
      else if (!after.has(key)) after.set(key, e)
    })
  }
  const targets = new Map<string, Map<string, StateRow | null>>()
  const absent = new Map<JournalKind, Set<string>>()
  const changed: PointInTimePlan['changed'] = {}
  for (const key of touched) {
    const e = before.get(key)
    const first = after.get(key)!
    let target: StateRow | null
    if (e) target = e.gone ? null : parse(e.state)
    else if (first.op === 'create') target = null
    else if (first.gone) target = parse(first.state)
    else {
      throw new SvcError('usage', 0, `--at ${at}: the journal holds no version of ${first.kind} ${first.id} at that time; ${rangeMessage(range)}; nothing was written`)
    }
    const kind = first.kind
    const table = JOURNAL_TABLES[kind].table
    if (!targets.has(table)) targets.set(table, new Map())
    targets.get(table)!.set(first.id, target)
    if (target === null) {
      if (!absent.has(kind)) absent.set(kind, new Set())
      absent.get(kind)!.add(first.id)
    }
    const c = (changed[kind] ??= {version: 0, absent: 0})
    if (target === null) c.absent++
    else c.version++
  }
  return {at, range, targets, absent, changed, laterEntries}
}

/** A journaled row's cell as the archive holds it (booleans 0/1, JSON as its text, a db without tables' records with a null table name). */
function cellOf(table: string, column: string, value: unknown): CellValue {
  if (value === undefined || value === null) return null
  if (typeof value === 'boolean') return value ? 1 : 0
  if (typeof value === 'number' || typeof value === 'string') {
    if (table === 'db_records' && column === 'table_name' && value === '') return null
    return value
  }
  return JSON.stringify(value)
}

/**
 * Rolls the rows of one archive table back to T as they stream by: the rows of resources changed
 * since T become their version at T or are left out, children of resources absent at T go (or lose
 * their reference), and the journal's entries after T are left out. `rest()` answers, at the
 * table's end, the rows at T the archive no longer holds (deleted since T).
 */
export function pointInTimeTable(plan: PointInTimePlan, table: string, columns: string[]) {
  const kind = KIND_OF_TABLE.get(table)
  const targets = plan.targets.get(table)
  const child = CHILDREN[table]
  const childAbsent = child ? plan.absent.get(child.kind) : undefined
  const childIndex = child ? columns.indexOf(child.column) : -1
  const idIndex = columns.indexOf('id')
  const atIndex = table === 'journal' ? columns.indexOf('at') : -1
  const consumed = new Set<string>()
  const rowOf = (state: StateRow, existing: CellValue[] | null): CellValue[] => {
    const t = JOURNAL_TABLES[kind!]
    return columns.map((c, i) => {
      if (c in t.secrets) return existing ? existing[i]! : cellOf(table, c, t.secrets[c]!())
      if (t.restoreSet && c in t.restoreSet) return cellOf(table, c, t.restoreSet[c])
      return cellOf(table, c, state[c])
    })
  }
  return {
    rows(rows: CellValue[][]): CellValue[][] {
      if (atIndex >= 0) return rows.filter((r) => String(r[atIndex]) <= plan.at)
      let out = rows
      if (targets && idIndex >= 0) {
        out = []
        for (const row of rows) {
          const id = String(row[idIndex])
          if (!targets.has(id)) {
            out.push(row)
            continue
          }
          consumed.add(id)
          const target = targets.get(id)!
          if (target) out.push(rowOf(target, row))
        }
      }
      if (childAbsent && childIndex >= 0) {
        const dropped: CellValue[][] = []
        for (const row of out) {
          if (row[childIndex] === null || !childAbsent.has(String(row[childIndex]))) dropped.push(row)
          else if (child!.action === 'null') dropped.push(row.map((v, i) => (i === childIndex ? null : v)))
        }
        out = dropped
      }
      return out
    },
    rest(): CellValue[][] {
      if (!targets || idIndex < 0) return []
      const out: CellValue[][] = []
      for (const [id, target] of targets) if (target && !consumed.has(id)) out.push(rowOf(target, null))
      return out
    },
  }
}
