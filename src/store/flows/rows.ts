/**
 * The rows of resources, flow processes and crons as both drivers read them, and their mapping to
 * entities: the column types are the same in SQLite and PostgreSQL (booleans 0/1 integers, JSON as
 * text), but for the computed `has_secret`, which the mapper takes either way.
 */
import {validation} from '../../core/errors.js'
import type {CronJob} from '../../core/flows/crons.js'
import {type DbTrigger, opsOf} from '../../core/flows/db-triggers.js'
import type {FlowProcess, FlowProcessDetail} from '../../core/flows/processes.js'
import type {Resource, ResourceKind} from '../../core/flows/resources.js'

/** A resource as RESOURCE_COLUMNS selects it: `has_secret` is 0/1 from SQLite, a boolean from PostgreSQL. */
export interface ResourceRow {
  id: number; account_id: number; kind: string; code: string; name: string; url: string | null
  has_secret: number | boolean; fields: string; created_by_id: number | null; created_at: string; updated_at: string
}
export interface ProcessRow {
  seq: number; id: string; account_id: number; flow_id: number | null; flow_code: string; status: string
  trigger_kind: string; cron_id: number | null; db_trigger_id: number | null; app_id: string | null; action: string | null; user_id: number | null
  input: string; output: string | null; error: string | null; steps: number; runner: string | null
  started_at: string; finished_at: string | null; duration_ms: number | null; created_at: string
  /** Only in PROCESS_DETAIL_COLUMNS: a list does not read the traces. */
  trace?: string | null
}
export interface CronRow {
  id: number; account_id: number; kind: string; target_code: string; schedule: string; timezone: string | null
  active: number; next_run_at: string | null; last_run_at: string | null; last_flow_process_id: string | null
  created_by_id: number | null; created_at: string; updated_at: string
}

// The secret column is never selected by a listing: it is read only by resourceSecret().
export const RESOURCE_COLUMNS = 'id, account_id, kind, code, name, url, secret_token IS NOT NULL AS has_secret, fields, created_by_id, created_at, updated_at'

/** The columns of a run in a list (every one but the trace, up to 64 KB each). */
export const PROCESS_COLUMNS = 'seq, id, account_id, flow_id, flow_code, status, trigger_kind, cron_id, db_trigger_id, app_id, action, user_id, input, output, '
  + 'error, steps, runner, started_at, finished_at, duration_ms, created_at'
export const PROCESS_DETAIL_COLUMNS = `${PROCESS_COLUMNS}, trace`

export function toResource(row: ResourceRow): Resource {
  return {
    id: row.id, kind: row.kind as ResourceKind, code: row.code, name: row.name, url: row.url,
    has_secret_token: !!row.has_secret, fields: JSON.parse(row.fields), created_by_id: row.created_by_id,
    created_at: row.created_at, updated_at: row.updated_at,
  }
}

export function toProcess(row: ProcessRow): FlowProcess {
  return {
    id: row.id, flow_id: row.flow_id, flow_code: row.flow_code, status: row.status as FlowProcess['status'],
    trigger: row.trigger_kind as FlowProcess['trigger'], cron_id: row.cron_id,
    db_trigger_id: row.db_trigger_id === null || row.db_trigger_id === undefined ? null : Number(row.db_trigger_id), app_id: row.app_id, action: row.action,
    user_id: row.user_id, input: JSON.parse(row.input), output: row.output === null ? null : JSON.parse(row.output),
    error: row.error, steps: row.steps, started_at: row.started_at, finished_at: row.finished_at,
    duration_ms: row.duration_ms, created_at: row.created_at,
  }
}

export function toProcessDetail(row: ProcessRow): FlowProcessDetail {
  return {...toProcess(row), trace: row.trace ? JSON.parse(row.trace) : null}
}

export function toCron(row: CronRow): CronJob {
  return {
    id: row.id, kind: 'flow', target_code: row.target_code, schedule: row.schedule, timezone: row.timezone,
    active: !!row.active, next_run_at: row.next_run_at, last_run_at: row.last_run_at,
    last_flow_process_id: row.last_flow_process_id, created_by_id: row.created_by_id,
    created_at: row.created_at, updated_at: row.updated_at,
  }
}

export interface DbTriggerRow {
  id: number; account_id: number; db_id: number; table_name: string | null; ops: string; target_code: string; active: number
  after_pos: number; created_by_id: number | null; created_at: string; updated_at: string
}

export function toDbTrigger(row: DbTriggerRow): DbTrigger {
  return {
    id: Number(row.id), kind: 'flow', db_id: Number(row.db_id), table_name: row.table_name, ops: opsOf(row.ops), target_code: row.target_code,
    active: !!Number(row.active), created_by_id: row.created_by_id === null ? null : Number(row.created_by_id),
    created_at: row.created_at, updated_at: row.updated_at,
  }
}

/** A resource code already used where it must be unique (per account and kind; per server for connectors). */
export const codeTaken = () => validation({code: ['has already been taken']})
