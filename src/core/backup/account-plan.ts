/**
 * One account's workspace moved to another server (`svc admin export` / `svc admin import`,
 * docs/backups.md "One account at a time"): which tables an export carries and in which order,
 * which integer ids an import renumbers and where else those ids appear (reference columns, a
 * prompt's scope, a user setting's key, record fields filled with `{user_id}`), and which values
 * must be unique on the whole target server (the collisions an import reports before writing).
 * Pure: no SQL, no I/O. The values are the archive's cells (string, number, null).
 */
import {planSchema, tablePlan, type SchemaPlan} from '../dbs/schema.js'
import {indexValues} from '../dbs/records.js'
import {INDEX_COLUMNS} from '../dbs/schema.js'

export type Cell = string | number | null

/** Id spaces: the tables whose integer key an import renumbers (named by the table). */
export type Space =
  | 'accounts' | 'departments' | 'teams' | 'groups' | 'users' | 'tokens' | 'dashboards' | 'dbs' | 'db_records'
  | 'resources' | 'crons' | 'db_triggers' | 'flow_processes'

/** A column holding an id of a space. A reference to a row the export does not hold (a deleted user) becomes null, or 0 where the column cannot be null. */
export interface Ref {
  space: Space
  nullable: boolean
}

/** What must be unique on the whole server, and how a collision is named to the person importing. */
export type GlobalKind = 'prompt_id' | 'app_id' | 'app_url_code' | 'connector_code' | 'public_db_code' | 'flow_run_id' | 'token_hash'

export interface GlobalKey {
  kind: GlobalKind
  value: string
  /** The thing that carries it, for the report: `app "Page"`. */
  label: string
}

export interface AccountTable {
  name: string
  /** The integer key renumbered on import (a space of its own, named by the table). */
  key?: string
  refs: Readonly<Record<string, Ref>>
}

const ref = (space: Space, nullable = false): Ref => ({space, nullable})

/**
 * The tables of an account export, in the order they are written and imported: every table after
 * the tables whose ids it holds (foreign keys or not: a dashboard's `created_by_id` has none).
 */
export const ACCOUNT_TABLES: readonly AccountTable[] = [
  {name: 'accounts', key: 'id', refs: {}},
  {name: 'departments', key: 'id', refs: {account_id: ref('accounts')}},
  {name: 'teams', key: 'id', refs: {account_id: ref('accounts')}},
  {name: 'groups', key: 'id', refs: {account_id: ref('accounts')}},
  {name: 'users', key: 'id', refs: {account_id: ref('accounts'), department_id: ref('departments', true)}},
  {name: 'user_teams', refs: {account_id: ref('accounts'), user_id: ref('users'), team_id: ref('teams')}},
  {name: 'user_groups', refs: {account_id: ref('accounts'), user_id: ref('users'), group_id: ref('groups')}},
  {name: 'tokens', key: 'id', refs: {account_id: ref('accounts'), user_id: ref('users')}},
  // scope_id is a user, team or department id by the row's scope (rewritten by scopeSpace).
  {name: 'prompts', refs: {account_id: ref('accounts'), created_by_id: ref('users', true)}},
  {name: 'dashboards', key: 'id', refs: {account_id: ref('accounts'), created_by_id: ref('users')}},
  {name: 'dashboard_selections', refs: {account_id: ref('accounts'), user_id: ref('users'), dashboard_id: ref('dashboards', true)}},
  {name: 'app_builds', refs: {}},
  {name: 'apps', refs: {account_id: ref('accounts'), created_by_id: ref('users'), updated_by_id: ref('users', true)}},
  {name: 'app_assets', refs: {}},
  {name: 'dbs', key: 'id', refs: {account_id: ref('accounts')}},
  {name: 'db_records', key: 'id', refs: {account_id: ref('accounts'), db_id: ref('dbs')}},
  // A schema change's reindex left half done (resumed by the server in slices): it starts over on the target (after_id 0).
  {name: 'db_reindexes', refs: {db_id: ref('dbs')}},
  {name: 'resources', key: 'id', refs: {account_id: ref('accounts'), created_by_id: ref('users', true)}},
  {name: 'crons', key: 'id', refs: {account_id: ref('accounts'), created_by_id: ref('users', true)}},
  // A trigger's after_pos is a place in the source's journal: 0 on the target (it sees the changes after the import).
  {name: 'db_triggers', key: 'id', refs: {account_id: ref('accounts'), db_id: ref('dbs'), created_by_id: ref('users', true)}},
  {name: 'flow_processes', key: 'seq', refs: {
    account_id: ref('accounts'), flow_id: ref('resources', true), cron_id: ref('crons', true), db_trigger_id: ref('db_triggers', true), user_id: ref('users', true),
  }},
  // After dbs: a setting's key may name a db (`grid:<db id>:<table>`).
  {name: 'user_settings', refs: {account_id: ref('accounts'), user_id: ref('users')}},
]

/**
 * Tables of a store an account export leaves out, and why: what belongs to the server (its own
 * keys), and the history (it stays with the server it describes). Any other table the plan does not
 * know makes an export refuse: a new table must be given its place here first.
 */
export const LEFT_OUT_OF_EXPORTS: Readonly<Record<string, string>> = {
  server_secrets: 'the server\'s own keys',
  journal: 'the history stays with the server it happened on',
  change_cursor: 'how far this server\'s flows on db changes have read its own journal',
}

/** Token kinds an export carries (hashes only): API tokens; console sessions never travel. */
export const EXPORTED_TOKEN_KINDS = ['api', 'api:read'] as const

export const CONNECTOR_KIND = 'svc/custom_connector'

export function accountTable(name: string): AccountTable | undefined {
  return ACCOUNT_TABLES.find((t) => t.name === name)
}

/** The store's carried tables an export would drop without a decision (a bug to fix in this plan). */
export function unplannedTables(storeTables: string[]): string[] {
  return storeTables.filter((name) => !accountTable(name) && !(name in LEFT_OUT_OF_EXPORTS))
}

/** A row as `{column: value}`. */
const asObject = (columns: readonly string[], row: readonly Cell[]): Record<string, Cell> =>
  Object.fromEntries(columns.map((c, i) => [c, row[i] ?? null]))

const isPublic = (publicMethods: Cell) => typeof publicMethods === 'string' && publicMethods.trim() !== '{}' && publicMethods.trim() !== ''

/** The values of a table's rows that must be unique on the target server. */
export function globalKeys(table: string, columns: readonly string[], rows: readonly (readonly Cell[])[]): GlobalKey[] {
  const out: GlobalKey[] = []
  for (const row of rows) {
    const r = asObject(columns, row)
    if (table === 'prompts') out.push({kind: 'prompt_id', value: String(r.id), label: `prompt "${r.code}"`})
    else if (table === 'apps') {
      out.push({kind: 'app_id', value: String(r.id), label: `app "${r.url_code}"`})
      out.push({kind: 'app_url_code', value: String(r.url_code), label: `app "${r.name}"`})
    } else if (table === 'resources' && r.kind === CONNECTOR_KIND) out.push({kind: 'connector_code', value: String(r.code), label: `connector "${r.name}"`})
    else if (table === 'dbs' && r.code !== null && isPublic(r.public_methods) && r.deleted_at == null) {
      out.push({kind: 'public_db_code', value: String(r.code), label: `public db "${r.name}"`})
    } else if (table === 'flow_processes') out.push({kind: 'flow_run_id', value: String(r.id), label: `flow run of "${r.flow_code}"`})
    else if (table === 'tokens') out.push({kind: 'token_hash', value: String(r.token_hash), label: `an API token of user id ${r.user_id}`})
  }
  return out
}

export interface Collision {
  kind: GlobalKind
  /** The code, url_code or id that is taken (never a token hash: `value` then names the user). */
  value: string
  label: string
  message: string
}

/** The keys the target holds already, as the lines of the report (`app "Page": url_code "page" is taken on this server`). */
export function describeCollisions(keys: readonly GlobalKey[], taken: ReadonlySet<string>): Collision[] {
  const out: Collision[] = []
  for (const key of keys) {
    if (!taken.has(`${key.kind}:${key.value}`)) continue
    const what: Record<GlobalKind, string> = {
      prompt_id: `id ${key.value} exists on this server (imported here before?)`,
      app_id: `id ${key.value} exists on this server (imported here before?)`,
      app_url_code: `url_code "${key.value}" is taken on this server (url_codes are unique server-wide)`,
      connector_code: `code "${key.value}" is taken on this server (connector codes are unique server-wide)`,
      public_db_code: `code "${key.value}" is the code of another account's public db on this server`,
      flow_run_id: `id ${key.value} exists on this server (imported here before?)`,
      token_hash: 'the same token exists on this server (imported here before?)',
    }
    out.push({kind: key.kind, value: key.kind === 'token_hash' ? key.label : key.value, label: key.label, message: `${key.label}: ${what[key.kind]}`})
  }
  return out
}

/** The space a prompt's scope_id belongs to. */
function scopeSpace(scope: Cell): Space | undefined {
  return scope === 'user' ? 'users' : scope === 'team' ? 'teams' : scope === 'department' ? 'departments' : undefined
}

/** The record fields a db's public methods fill with the visitor's user id alone (`{user_id}`): ids to renumber in its records. */
export function userIdFields(publicMethods: Cell): {exact: string[]; mixed: string[]} {
  const exact = new Set<string>()
  const mixed = new Set<string>()
  let config: unknown
  try {
    config = typeof publicMethods === 'string' ? JSON.parse(publicMethods) : null
  } catch {
    config = null
  }
  if (config && typeof config === 'object') {
    for (const method of Object.values(config as Record<string, unknown>)) {
      const auto = method && typeof method === 'object' ? (method as {auto_fields?: unknown}).auto_fields : undefined
      if (!auto || typeof auto !== 'object') continue
      for (const [field, template] of Object.entries(auto as Record<string, unknown>)) {
        if (typeof template !== 'string' || !template.includes('{user_id}')) continue
        if (template.trim() === '{user_id}') exact.add(field)
        else mixed.add(field)
      }
    }
  }
  return {exact: [...exact], mixed: [...mixed].filter((f) => !exact.has(f))}
}

const SETTING_DB_KEY = /^grid:(\d+):(.*)$/s

interface DbInfo {
  plan: SchemaPlan
  userIdFields: string[]
}

/**
 * The renumbering of one import: each space's old ids → new ids (assigned in the archive's order,
 * so ids keep their order), and the rewrite of every row into the target account.
 */
export class Renumbering {
  private readonly maps = new Map<Space, Map<number, number>>()
  private readonly dbs = new Map<number, DbInfo>()
  /** What the import could not carry as it was, for the report. */
  readonly notes: string[] = []
  /** Records whose `{user_id}` fields were renumbered. */
  recordsRewritten = 0

  constructor(readonly targetAccountId: number) {}

  /** The new id of an old one of a space (undefined: not in the export). */
  lookup(space: Space, old: number): number | undefined {
    return this.maps.get(space)?.get(old)
  }

  private remember(space: Space, old: number, fresh: number) {
    let map = this.maps.get(space)
    if (!map) this.maps.set(space, (map = new Map()))
    map.set(old, fresh)
  }

  /** Spaces whose maps must be kept (something later refers to them); record and run ids need none. */
  private static readonly REFERENCED: ReadonlySet<Space> = new Set(
    ACCOUNT_TABLES.flatMap((t) => Object.values(t.refs).map((r) => r.space)).concat(['users', 'teams', 'departments', 'dbs']))

  private mapRef(r: Ref, value: Cell): Cell {
    if (value === null) return null
    const fresh = this.lookup(r.space, Number(value))
    if (fresh !== undefined) return fresh
    return r.nullable ? null : 0
  }

  /**
   * The rows of a table as the target stores them: the key given the new ids (`freshIds`, one per
   * row, ascending), every reference mapped. A row that cannot be carried (a setting of a db the
   * export does not hold) is left out.
   */
  rewrite(tableName: string, columns: readonly string[], rows: readonly (readonly Cell[])[], freshIds?: readonly number[]): Cell[][] {
    const table = accountTable(tableName)
    if (!table) throw new Error(`table ${tableName} is not part of an account export`)
    const keyAt = table.key ? columns.indexOf(table.key) : -1
    if (table.key && keyAt < 0) throw new Error(`${tableName} has no ${table.key} column`)
    if (keyAt >= 0 && freshIds?.length !== rows.length) throw new Error(`${tableName}: ${rows.length} rows need ${rows.length} new ids`)
    const refs = columns.map((c) => table.refs[c])
    const at = (name: string) => columns.indexOf(name)
    const keep = keyAt >= 0 && Renumbering.REFERENCED.has(tableName as Space)
    const out: Cell[][] = []
    rows.forEach((row, n) => {
      const next = row.map((value, i) => (refs[i] ? this.mapRef(refs[i]!, value) : value))
      if (keyAt >= 0) {
        if (keep) this.remember(tableName as Space, Number(row[keyAt]), freshIds![n]!)
        next[keyAt] = freshIds![n]!
      }
      if (tableName === 'accounts') {
        // The account is the target one whatever the archive numbered it.
        this.remember('accounts', Number(row[keyAt]), this.targetAccountId)
        next[keyAt] = this.targetAccountId
      } else if (tableName === 'prompts') {
        const space = scopeSpace(row[at('scope')] ?? null)
        const i = at('scope_id')
        if (space && i >= 0) next[i] = this.mapRef(ref(space, true), row[i] ?? null)
      } else if (tableName === 'dbs') {
        const fields = userIdFields(row[at('public_methods')] ?? null)
        if (fields.mixed.length) {
          this.notes.push(`db "${row[at('name')]}": the fields ${fields.mixed.join(', ')} hold a user id inside other text ({user_id} in a template): not renumbered`)
        }
        let schema: unknown = null
        try {
          schema = typeof row[at('schema')] === 'string' ? JSON.parse(row[at('schema')] as string) : null
        } catch {
          schema = null
        }
        this.dbs.set(Number(next[keyAt]), {plan: planSchema(schema), userIdFields: fields.exact})
      } else if (tableName === 'db_records') {
        this.rewriteRecord(columns, next)
      } else if (tableName === 'db_triggers') {
        const i = at('after_pos')
        if (i >= 0) next[i] = 0
      } else if (tableName === 'db_reindexes') {
        // Its progress is a record id of the source: the renumbered records are all reindexed again.
        const i = at('after_id')
        if (i >= 0) next[i] = 0
      } else if (tableName === 'user_settings') {
        const i = at('key')
        const m = SETTING_DB_KEY.exec(String(row[i]))
        if (m) {
          const db = this.lookup('dbs', Number(m[1]))
          if (db === undefined) return
          next[i] = `grid:${db}:${m[2]}`
        }
      }
      out.push(next)
    })
    return out
  }

  /** A record of a db whose public methods store the visitor's user id: that id renumbered (and its index column). */
  private rewriteRecord(columns: readonly string[], next: Cell[]) {
    const db = this.dbs.get(Number(next[columns.indexOf('db_id')]))
    if (!db?.userIdFields.length) return
    const dataAt = columns.indexOf('data')
    let data: Record<string, unknown>
    try {
      data = JSON.parse(String(next[dataAt]))
    } catch {
      return
    }
    if (!data || typeof data !== 'object' || Array.isArray(data)) return
    let changed = false
    for (const field of db.userIdFields) {
      const value = Object.hasOwn(data, field) ? data[field] : undefined
      if (typeof value !== 'string' || !/^[1-9][0-9]{0,15}$/.test(value)) continue
      const fresh = this.lookup('users', Number(value))
      const replacement = fresh === undefined ? '' : String(fresh)
      if (replacement !== value) {
        data[field] = replacement
        changed = true
      }
    }
    if (!changed) return
    this.recordsRewritten++
    next[dataAt] = JSON.stringify(data)
    const tableAt = columns.indexOf('table_name')
    const values = indexValues(tablePlan(db.plan, tableAt >= 0 ? (next[tableAt] as string | null) : null), data)
    for (const column of INDEX_COLUMNS) {
      const i = columns.indexOf(column)
      if (i >= 0) next[i] = values[column]
    }
  }
}
