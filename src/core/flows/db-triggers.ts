/**
 * Flows on db changes (docs/flows.md "Flows on db changes"): a trigger names a db of the account, an
 * optional table and the ops (create, update, delete) whose changes start one run of a flow each,
 * with the change as the run's input. The changes are the journal's record entries (docs/history.md);
 * this module says which entry is which change and which trigger it starts. Pure: no I/O.
 */
import type {StoredEntry} from '../journal/types.js'
import {bookmarkOf} from '../journal/types.js'
import type {DbTriggerCreate, DbTriggerPatch, DbTriggerView} from '../contract/flows.js'
import {DB_CHANGE_OPS, type DbChangeOp} from './db-changes.js'
import type {JsonObject} from './data.js'

export {DB_CHANGE_OPS, type DbChangeOp}
export type {DbTriggerView as DbTrigger} from '../contract/flows.js'

/** What a create or a PATCH stores (the db resolved to its id). */
export interface DbTriggerWrite {
  db_id: number
  table_name: string | null
  ops: DbChangeOp[]
  target_code: string
  active: boolean
}

/** A trigger as the change service matches it (every account's). */
export interface ActiveDbTrigger {
  id: number
  account_id: number
  db_id: number
  table_name: string | null
  ops: DbChangeOp[]
  target_code: string
  /** Changes at or before this journal position happened before the trigger existed. */
  after_pos: number
}

/** The ops as stored (`create,update`), back to a list in the canonical order. */
export function opsOf(stored: string): DbChangeOp[] {
  const parts = stored.split(',')
  return DB_CHANGE_OPS.filter((op) => parts.includes(op))
}

/** The trigger a create (no `existing`) or a PATCH writes; absent members keep their value. */
export function dbTriggerData(input: DbTriggerCreate | DbTriggerPatch, dbId: number, existing?: DbTriggerView): DbTriggerWrite {
  return {
    db_id: dbId,
    table_name: input.table_name === undefined ? existing?.table_name ?? null : input.table_name,
    ops: input.ops ?? existing?.ops ?? [...DB_CHANGE_OPS],
    target_code: input.target_code ?? existing!.target_code,
    active: input.active ?? existing?.active ?? true,
  }
}

/** A journal entry as the change service reads it (what it needs of the store's entry). */
export type ChangeEntry = Omit<StoredEntry, 'summary' | 'requestId'>

/**
 * The change an entry is, for triggers: a record's create, update or delete; a restore is an update
 * (a delete when it removed the record). Null for any other entry, for a write made by a flow run
 * (door `flow`: a run never starts another run by writing, the loop guard of docs/flows.md) and for an
 * account import (door `import`: data moved in, not changed).
 */
export function changeOf(e: ChangeEntry): {op: DbChangeOp; dbId: number; tableName: string | null} | null {
  if (e.kind !== 'record' || e.parentId === null || e.door === 'flow' || e.door === 'import') return null
  const op: DbChangeOp = e.op === 'restore' ? (e.gone ? 'delete' : 'update') : e.op
  const tableName = e.state && typeof e.state.table_name === 'string' ? e.state.table_name : null
  return {op, dbId: Number(e.parentId), tableName}
}

/** Whether `trigger` runs for the change `e` (of its account, db, table and ops, after it was created). */
export function triggerMatches(trigger: ActiveDbTrigger, e: ChangeEntry, change: NonNullable<ReturnType<typeof changeOf>>): boolean {
  return trigger.account_id === e.accountId && trigger.db_id === change.dbId && e.seq > trigger.after_pos
    && trigger.ops.includes(change.op) && (trigger.table_name === null || trigger.table_name === change.tableName)
}

/**
 * The input of the run a change starts: the record as the records API shapes it (for a delete, its
 * last version), with who changed it and how. `maxBytes`: a record too large for a run's input is
 * cut to `{id, table_name}` and `record_truncated: true` (the flow can read it through a connector).
 */
export function changeInput(trigger: ActiveDbTrigger, e: ChangeEntry, change: NonNullable<ReturnType<typeof changeOf>>,
  record: JsonObject | null, fits: (input: JsonObject) => boolean): JsonObject {
  const input: JsonObject = {
    kind: 'db_change', db_trigger_id: trigger.id, db_id: change.dbId, table_name: change.tableName, op: change.op,
    record_id: Number(e.id), record, bookmark: bookmarkOf(e.seq), at: e.at, door: e.door, client: e.client,
    actor: {type: e.actor.type, id: e.actor.id, name: e.actor.name},
  }
  if (fits(input)) return input
  return {...input, record: {id: Number(e.id), table_name: change.tableName}, record_truncated: true}
}
