/** Repository interface of the flows area: what http needs from storage, implementation-neutral. */
import type {CronJob, CronWrite} from '../../core/flows/crons.js'
import type {JsonObject} from '../../core/flows/data.js'
import type {ActiveDbTrigger, DbTrigger, DbTriggerWrite} from '../../core/flows/db-triggers.js'
import type {FlowProcess, FlowProcessDetail, ProcessFilter, ProcessStatus, Trigger} from '../../core/flows/processes.js'
import type {FlowTrace} from '../../core/flows/trace.js'
import type {Resource, ResourceKind, ResourceWrite} from '../../core/flows/resources.js'

export type {CronJob, CronWrite, FlowProcess, FlowProcessDetail, ProcessFilter, Resource, ResourceKind, ResourceWrite}

export interface ResourceFilter {
  kind?: ResourceKind
  code?: string
  /** Fragment of `name` or `code`. */
  q?: string
}

export interface NewProcess {
  /** A UUID chosen by the caller (default: a new one). */
  id?: string
  accountId: number
  flowId: number | null
  flowCode: string
  trigger: Trigger
  cronId?: number | null
  /** The db trigger and the journal position of the change that started the run (trigger `db_change`): one run per pair. */
  dbTriggerId?: number | null
  changePos?: number | null
  appId?: string | null
  action?: string | null
  userId?: number | null
  input: JsonObject
  /** Who runs it: `host:pid`, to tell a run whose process died (see pendingRuns). */
  runner: string
}

export interface ProcessResult {
  status: Exclude<ProcessStatus, 'pending'>
  output: JsonObject | null
  error: string | null
  steps: number
  /** The steps as executed (bounded by the runner), or null when the run failed before any. */
  trace: FlowTrace | null
}

/** A cron with its account, as the scheduler sees it (across accounts). */
export type DueCron = CronJob & {account_id: number}

export interface FlowsRepo {
  listResources(accountId: number, filter: ResourceFilter): Promise<Resource[]>
  getResource(accountId: number, id: number): Promise<Resource | null>
  findResource(accountId: number, kind: ResourceKind, code: string): Promise<Resource | null>
  /** The connector with this code on the whole server (codes of connectors are server-wide unique). */
  findConnector(code: string): Promise<{accountId: number; resource: Resource} | null>
  /** The stored secret token of a resource of the account (never leaves the server). */
  resourceSecret(accountId: number, id: number): Promise<string | null>
  /** 422 `{code: ['has already been taken']}` for a duplicate. */
  createResource(accountId: number, userId: number | null, write: ResourceWrite): Promise<Resource>
  updateResource(accountId: number, id: number, write: ResourceWrite): Promise<Resource | null>
  deleteResource(accountId: number, id: number): Promise<boolean>

  createProcess(input: NewProcess): Promise<FlowProcessDetail>
  /** Records the end of a pending run; a run already ended is left as it is (returns it). */
  finishProcess(accountId: number, id: string, result: ProcessResult): Promise<FlowProcessDetail | null>
  /** One run with its trace. */
  getProcess(accountId: number, id: string): Promise<FlowProcessDetail | null>
  /** Newest first, without their traces. */
  listProcesses(accountId: number, filter: ProcessFilter): Promise<FlowProcess[]>
  /** Pending runs (of one account, or all) with their runner, to find runs whose process died. */
  pendingRuns(accountId?: number): Promise<{id: string; account_id: number; runner: string | null}[]>
  /** Ends pending runs as `error` with this text (runs no longer pending are left alone). */
  interruptProcesses(ids: string[], error: string): Promise<number>
  /** Deletes ended runs beyond the newest `keep` of each account; returns how many. */
  pruneProcesses(keep: number): Promise<number>

  listCrons(accountId: number): Promise<CronJob[]>
  getCron(accountId: number, id: number): Promise<CronJob | null>
  /** With `maxCrons`: throws cronQuotaReached when the account has that many (counted and inserted in one step, under a lock). */
  createCron(accountId: number, userId: number | null, write: CronWrite, nextRunAt: string | null, maxCrons?: number): Promise<CronJob>
  updateCron(accountId: number, id: number, write: CronWrite, nextRunAt: string | null): Promise<CronJob | null>
  deleteCron(accountId: number, id: number): Promise<boolean>
  /** Active crons of every account whose next run is at or before `nowIso`. */
  dueCrons(nowIso: string, limit: number): Promise<DueCron[]>
  /**
   * Moves a due cron to its next run, only if nobody did meanwhile (compare-and-set on
   * `next_run_at`), so two servers over one data file never start the same occurrence twice.
   */
  claimCron(id: number, expectedNextRunAt: string, nextRunAt: string | null, lastRunAt: string): Promise<boolean>
  setCronLastProcess(accountId: number, id: number, processId: string, at: string): Promise<void>
  listDbTriggers(accountId: number): Promise<DbTrigger[]>
  getDbTrigger(accountId: number, id: number): Promise<DbTrigger | null>
  /** Sees the changes committed after it (its `after_pos`). With `max`: throws dbTriggerQuotaReached when the account has that many. */
  createDbTrigger(accountId: number, userId: number | null, write: DbTriggerWrite, max?: number): Promise<DbTrigger>
  updateDbTrigger(accountId: number, id: number, write: DbTriggerWrite): Promise<DbTrigger | null>
  deleteDbTrigger(accountId: number, id: number): Promise<boolean>
  /** The active triggers of every account (the change service matches journal entries against them). */
  activeDbTriggers(): Promise<ActiveDbTrigger[]>
  /** Where the change service reads the journal from; made (at the journal's head: no past change runs) when there is none. */
  changeCursor(): Promise<number>
  /** The journal's head: the position of the newest committed entry (0 for none). */
  journalHead(): Promise<number>
  /**
   * Moves the cursor from `from` to `to` and records `runs` (pending, each claiming its (trigger, change)) in one
   * transaction, only if the cursor is still at `from` (compare-and-set): of N instances that read the same changes,
   * exactly one records their runs. False (nothing written) when another one moved it first.
   */
  claimChanges(from: number, to: number, runs: NewProcess[]): Promise<boolean>
}
