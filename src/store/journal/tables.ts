/**
 * What the journal knows of each kind it records: the table its rows live in, the columns it never
 * keeps (secrets, and what the database computes), how a row reads as the API answers it, and what
 * a restore must do beyond writing the row back.
 */
import {randomBytes} from 'node:crypto'
import {appView} from '../../core/apps/validate.js'
import {validation} from '../../core/errors.js'
import type {JournalKind} from '../../core/journal/types.js'
import {toView} from '../../core/prompts/types.js'
import {type AppRow, toAppRecord} from '../apps/rows.js'
import {type DashboardRow, toDashboard} from '../dashboards/rows.js'
import {type DbRow, type RecordRow, toDb, toRecordView} from '../dbs/rows.js'
import {type CronRow, type DbTriggerRow, type ResourceRow, toCron, toDbTrigger, toResource} from '../flows/rows.js'
import {type PromptRow, toPromptRecord} from '../prompts/rows.js'

/** A row as the journal keeps it: its columns, secrets and computed columns left out. */
export type StateRow = Record<string, unknown>

export interface JournalTable {
  table: string
  /** Never kept: a re-inserted row gets a fresh value (a token) or null (a connector's secret). */
  secrets: Record<string, () => unknown>
  /** Computed by the database (PostgreSQL's generated columns) or the store's own bookkeeping: never kept, never written back. */
  omit: string[]
  /** Set by every restore (a db marked deleted comes back). */
  restoreSet?: Record<string, unknown>
  /** The condition of a row that exists for the API (a db being deleted does not). */
  live?: string
  /** The resource as the API answers it. */
  view(row: StateRow): unknown
  /** A name for one line of history. */
  label(row: StateRow): string
  /** What a unique violation of a restore means: which code is taken. */
  taken(row: StateRow): Error
  /** Recorded as events only, never restored (core/journal/types.ts EVENT_KINDS). */
  event?: true
}

/** A 422 naming the field and value taken meanwhile, and (member `restore`) how to restore all the same. */
const taken = (field: string, value: unknown, hint: string) => {
  const message = `the ${field} "${String(value).slice(0, 200)}" was taken meanwhile: ${hint}`
  return validation({[field]: ['has already been taken'], restore: [message]}, message)
}
const token = (bytes: number) => () => randomBytes(bytes).toString('base64url')
const str = (v: unknown) => (v === null || v === undefined ? '' : String(v))

export const JOURNAL_TABLES: Record<JournalKind, JournalTable> = {
  prompt: {
    table: 'prompts',
    secrets: {token: token(32)},
    omit: [],
    view: (row) => toView(toPromptRecord(row as unknown as PromptRow)),
    label: (row) => `${str(row.name)} (${str(row.code)})`,
    taken: (row) => taken('code', row.code, 'change the code of the prompt holding it, then restore again'),
  },
  dashboard: {
    table: 'dashboards',
    secrets: {},
    omit: [],
    view: (row) => toDashboard(row as unknown as DashboardRow),
    label: (row) => str(row.name),
    taken: () => validation({id: ['conflicts']}),
  },
  app: {
    table: 'apps',
    secrets: {token: token(24)},
    omit: [],
    view: (row) => appView(toAppRecord(row as unknown as AppRow)),
    label: (row) => `${str(row.name)} (${str(row.url_code)})`,
    taken: (row) => taken('url_code', row.url_code, 'change the url_code of the app holding it, then restore again'),
  },
  db: {
    table: 'dbs',
    secrets: {},
    omit: ['deleted_at'],
    restoreSet: {deleted_at: null},
    live: 'deleted_at IS NULL',
    view: (row) => toDb({...(row as unknown as DbRow), records_count: -1}),
    label: (row) => `${str(row.name)}${row.code ? ` (${str(row.code)})` : ''}`,
    taken: (row) => taken('code', row.code, 'change the code of the db holding it, then restore again'),
  },
  record: {
    table: 'db_records',
    secrets: {},
    omit: ['search_text'],
    view: (row) => toRecordView(row as unknown as RecordRow),
    label: (row) => `#${str(row.id)}${row.table_name ? ` in ${str(row.table_name)}` : ''}`,
    taken: () => validation({db: ['no longer exists']}, 'the record\'s db no longer exists: restore the db first'),
  },
  resource: {
    table: 'resources',
    secrets: {secret_token: () => null},
    omit: [],
    view: (row) => toResource({...(row as unknown as ResourceRow), has_secret: !!row.has_secret_token}),
    label: (row) => `${str(row.kind)} ${str(row.code)}`,
    taken: (row) => taken('code', row.code, 'change the code of the resource holding it, then restore again'),
  },
  user: {
    table: 'users',
    secrets: {},
    omit: [],
    event: true,
    view: (row) => ({
      id: row.id, account_id: row.account_id, login: row.login, email: row.email, name: row.name, role: row.role,
      permissions: typeof row.permissions === 'string' ? JSON.parse(row.permissions) : row.permissions, department_id: row.department_id ?? null,
      created_at: row.created_at,
    }),
    label: (row) => `${str(row.name)} (${str(row.login)})`,
    taken: () => validation({id: ['conflicts']}),
  },
  token: {
    table: 'tokens',
    // The hash is never kept (nor, anywhere, the token itself).
    secrets: {token_hash: () => null},
    omit: [],
    event: true,
    view: (row) => ({id: row.id, account_id: row.account_id, user_id: row.user_id, kind: row.kind, expires_at: row.expires_at ?? null, created_at: row.created_at}),
    label: (row) => `#${str(row.id)} (${str(row.kind)}) of user #${str(row.user_id)}`,
    taken: () => validation({id: ['conflicts']}),
  },
  cron: {
    table: 'crons',
    secrets: {},
    omit: [],
    view: (row) => toCron(row as unknown as CronRow),
    label: (row) => `${str(row.target_code)} ${str(row.schedule)}`,
    taken: () => validation({id: ['conflicts']}),
  },
  db_trigger: {
    table: 'db_triggers',
    secrets: {},
    omit: [],
    view: (row) => toDbTrigger(row as unknown as DbTriggerRow),
    label: (row) => `${str(row.target_code)} on db ${str(row.db_id)}${row.table_name ? ` table ${str(row.table_name)}` : ''} (${str(row.ops)})`,
    taken: () => validation({id: ['conflicts']}),
  },
}

/**
 * A row as the journal keeps it (a record's null index columns left out): secrets become whether they are set (`has_<column>`: a connector's
 * secret_token is recorded as set or changed, never as its value), computed columns go.
 */
export function stateOf(kind: JournalKind, row: Record<string, unknown>): StateRow {
  return JSON.parse(stateText(kind, row)) as StateRow
}

const OMITTED = Object.fromEntries(Object.entries(JOURNAL_TABLES).map(([k, t]) => [k, new Set(t.omit)])) as Record<JournalKind, Set<string>>
/** `"column":` of each column name seen (names come from the store's own SELECT *). */
const KEYS = new Map<string, string>()
const keyOf = (k: string) => {
  let key = KEYS.get(k)
  if (key === undefined) KEYS.set(k, (key = `${JSON.stringify(k)}:`))
  return key
}

/**
 * The JSON text of stateOf's row, written straight from the row (every write journals one: no
 * intermediate object, no Object.entries; docs/benchmarks.md "The journal"). A record's unused index
 * columns are left out when null (a restore writes null to every column the kept row does not hold):
 * they would otherwise cost ~100 bytes an entry.
 */
export function stateText(kind: JournalKind, row: Record<string, unknown>): string {
  const {secrets} = JOURNAL_TABLES[kind]
  const omit = OMITTED[kind]
  let out = ''
  for (const k in row) {
    if (!Object.hasOwn(row, k) || omit.has(k)) continue
    const v = row[k]
    if (Object.hasOwn(secrets, k)) {
      if (kind === 'resource') out += `,${keyOf(`has_${k}`)}${v !== null && v !== undefined}`
      continue
    }
    if (v === undefined) continue
    if (v === null) {
      if (!k.startsWith('idx_')) out += `,${keyOf(k)}null`
      continue
    }
    out += `,${keyOf(k)}${typeof v === 'number' && Number.isFinite(v) ? String(v) : JSON.stringify(v)}`
  }
  return `{${out.slice(1)}}`
}
