/** The flows area's repository (resources, flow processes, crons), written once over the SQL port. */
import {appendEntry, appendRow, JournalContext} from '../journal/writer.js'
import {randomUUID} from 'node:crypto'
import type {CronJob, CronWrite} from '../../core/flows/crons.js'
import type {FlowProcess, FlowProcessDetail, ProcessFilter} from '../../core/flows/processes.js'
import {CONNECTOR_KIND, type Resource, type ResourceKind, type ResourceWrite} from '../../core/flows/resources.js'
import {cronQuotaReached, dbTriggerQuotaReached} from '../../core/quotas.js'
import {type ActiveDbTrigger, type DbTrigger, type DbTriggerWrite, opsOf} from '../../core/flows/db-triggers.js'
import {likeEscape} from '../like-escape.js'
import {deleteChecked, isRowId, type SqlPort, type TxBody, type TxSql, txUnique} from '../sql/port.js'
import {
  codeTaken, type CronRow, type DbTriggerRow, PROCESS_COLUMNS, PROCESS_DETAIL_COLUMNS, type ProcessRow, RESOURCE_COLUMNS, type ResourceRow, toCron, toProcess,
  toDbTrigger, toProcessDetail, toResource,
} from './rows.js'
import type {DueCron, FlowsRepo, NewProcess, ProcessResult, ResourceFilter} from './types.js'

const now = () => new Date().toISOString()
/** Ids per statement when a list of ids is bound (SQLite binds at most 32766 parameters). */
const IDS_PER_STATEMENT = 500

export class SqlFlowsRepo implements FlowsRepo {
  constructor(private readonly sql: SqlPort, private readonly journal = new JournalContext()) {}

  // ---- resources -------------------------------------------------------------------------

  async listResources(accountId: number, filter: ResourceFilter): Promise<Resource[]> {
    const where = ['account_id = ?']
    const values: unknown[] = [accountId]
    if (filter.kind) where.push('kind = ?'), values.push(filter.kind)
    if (filter.code) where.push('code = ?'), values.push(filter.code)
    if (filter.q) {
      const {likeCi} = this.sql.dialect
      where.push(`(${likeCi('name')} OR ${likeCi('code')})`)
      const like = `%${likeEscape(filter.q)}%`
      values.push(like, like)
    }
    return (await this.sql.all<ResourceRow>(`SELECT ${RESOURCE_COLUMNS} FROM resources WHERE ${where.join(' AND ')} ORDER BY id`, values))
      .map(toResource)
  }

  async getResource(accountId: number, id: number): Promise<Resource | null> {
    if (!isRowId(id)) return null
    const row = await this.sql.get<ResourceRow>(`SELECT ${RESOURCE_COLUMNS} FROM resources WHERE account_id = ? AND id = ?`, [accountId, id])
    return row ? toResource(row) : null
  }

  async findResource(accountId: number, kind: ResourceKind, code: string): Promise<Resource | null> {
    const row = await this.sql.get<ResourceRow>(`SELECT ${RESOURCE_COLUMNS} FROM resources WHERE account_id = ? AND kind = ? AND code = ?`,
      [accountId, kind, code])
    return row ? toResource(row) : null
  }

  async findConnector(code: string): Promise<{accountId: number; resource: Resource} | null> {
    const row = await this.sql.get<ResourceRow>(`SELECT ${RESOURCE_COLUMNS} FROM resources WHERE kind = ? AND code = ?`, [CONNECTOR_KIND, code])
    return row ? {accountId: row.account_id, resource: toResource(row)} : null
  }

  async resourceSecret(accountId: number, id: number): Promise<string | null> {
    if (!isRowId(id)) return null
    const row = await this.sql.get<{secret_token: string | null}>('SELECT secret_token FROM resources WHERE account_id = ? AND id = ?', [accountId, id])
    return row?.secret_token ?? null
  }

  /** The check gives the usual 422; the unique indexes decide a race between instances. */
  private writeResource<T>(body: (q: TxSql) => TxBody<T>): Promise<T> {
    return txUnique(this.sql, body, codeTaken)
  }

  async createResource(accountId: number, userId: number | null, write: ResourceWrite): Promise<Resource> {
    const who = this.journal.current()
    const id = await this.writeResource(function* (q) {
      yield* assertCodeFree(q, accountId, write, null)
      const at = now()
      const created = (yield* q.get<{id: number}>(
        `INSERT INTO resources (account_id, kind, code, name, url, secret_token, fields, created_by_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [accountId, write.kind, write.code, write.name, write.url, write.secret_token ?? null, JSON.stringify(write.fields), userId, at, at],
      ))!.id
      yield* appendRow(q, who, {accountId, kind: 'resource', id: created, op: 'create'})
      return created
    })
    return (await this.getResource(accountId, id))!
  }

  async updateResource(accountId: number, id: number, write: ResourceWrite): Promise<Resource | null> {
    if (!isRowId(id)) return null
    const {forUpdate} = this.sql.dialect
    const who = this.journal.current()
    const changed = await this.writeResource(function* (q) {
      if (!(yield* q.get(`SELECT 1 FROM resources WHERE account_id = ? AND id = ?${forUpdate}`, [accountId, id]))) return false
      yield* assertCodeFree(q, accountId, write, id)
      yield* q.run('UPDATE resources SET code = ?, name = ?, url = ?, fields = ?, updated_at = ? WHERE account_id = ? AND id = ?',
        [write.code, write.name, write.url, JSON.stringify(write.fields), now(), accountId, id])
      if (write.secret_token !== undefined) {
        yield* q.run('UPDATE resources SET secret_token = ? WHERE account_id = ? AND id = ?', [write.secret_token, accountId, id])
      }
      // The secret is recorded as changed, never as its value (stateOf keeps whether it is set).
      yield* appendRow(q, who, {accountId, kind: 'resource', id, op: 'update', detail: write.secret_token !== undefined ? 'secret_token changed' : undefined})
      return true
    })
    return changed ? this.getResource(accountId, id) : null
  }

  async deleteResource(accountId: number, id: number): Promise<boolean> {
    if (!isRowId(id)) return false
    const who = this.journal.current()
    return deleteChecked(this.sql, 'resources', '*', accountId, id, (row) => row, undefined,
      (q, row) => appendEntry(q, who, {accountId, kind: 'resource', id, op: 'delete', row, gone: true}))
  }

  // ---- flow processes --------------------------------------------------------------------

  async createProcess(input: NewProcess): Promise<FlowProcessDetail> {
    const id = input.id ?? randomUUID()
    await this.sql.tx(function* (q) {
      yield* insertProcess(q, {...input, id}, now())
    })
    return (await this.getProcess(input.accountId, id))!
  }

  async finishProcess(accountId: number, id: string, result: ProcessResult): Promise<FlowProcessDetail | null> {
    const {forUpdate} = this.sql.dialect
    // Only a pending run finishes, once, whichever instance asks (the row locked while it is read).
    await this.sql.tx(function* (q) {
      const row = yield* q.get<{started_at: string}>(
        `SELECT started_at FROM flow_processes WHERE account_id = ? AND id = ? AND status = 'pending'${forUpdate}`, [accountId, id])
      if (!row) return
      const end = new Date()
      yield* q.run(
        `UPDATE flow_processes SET status = ?, output = ?, error = ?, steps = ?, trace = ?, finished_at = ?, duration_ms = ?
         WHERE account_id = ? AND id = ? AND status = 'pending'`,
        [result.status, result.output === null ? null : JSON.stringify(result.output), result.error, result.steps,
          result.trace === null ? null : JSON.stringify(result.trace), end.toISOString(), Math.max(0, end.getTime() - Date.parse(row.started_at)), accountId, id],
      )
    })
    return this.getProcess(accountId, id)
  }

  async getProcess(accountId: number, id: string): Promise<FlowProcessDetail | null> {
    const row = await this.sql.get<ProcessRow>(`SELECT ${PROCESS_DETAIL_COLUMNS} FROM flow_processes WHERE account_id = ? AND id = ?`, [accountId, id])
    return row ? toProcessDetail(row) : null
  }

  async listProcesses(accountId: number, filter: ProcessFilter): Promise<FlowProcess[]> {
    const where = ['account_id = ?']
    const values: unknown[] = [accountId]
    if (filter.status) where.push('status = ?'), values.push(filter.status)
    if (filter.trigger) where.push('trigger_kind = ?'), values.push(filter.trigger)
    if (filter.flow_code) where.push('flow_code = ?'), values.push(filter.flow_code)
    if (filter.cron_id) where.push('cron_id = ?'), values.push(filter.cron_id)
    if (filter.db_trigger_id) where.push('db_trigger_id = ?'), values.push(filter.db_trigger_id)
    if (filter.app_id) where.push('app_id = ?'), values.push(filter.app_id)
    const rows = await this.sql.all<ProcessRow>(`SELECT ${PROCESS_COLUMNS} FROM flow_processes WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ? OFFSET ?`,
      [...values, filter.limit, filter.offset])
    return rows.map(toProcess)
  }

  async pendingRuns(accountId?: number): Promise<{id: string; account_id: number; runner: string | null}[]> {
    const sql = "SELECT id, account_id, runner FROM flow_processes WHERE status = 'pending'"
    return accountId === undefined ? this.sql.all(sql) : this.sql.all(`${sql} AND account_id = ?`, [accountId])
  }

  async interruptProcesses(ids: string[], error: string): Promise<number> {
    if (ids.length === 0) return 0
    const at = now()
    const duration = this.sql.dialect.millisBetween('?', 'started_at')
    return this.sql.tx(function* (q) {
      let count = 0
      for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
        const chunk = ids.slice(i, i + IDS_PER_STATEMENT)
        count += yield* q.run(
          `UPDATE flow_processes SET status = 'error', error = ?, finished_at = ?, duration_ms = ${duration}
           WHERE id IN (${chunk.map(() => '?').join(', ')}) AND status = 'pending'`,
          [error, at, at, ...chunk],
        )
      }
      return count
    })
  }

  async pruneProcesses(keep: number): Promise<number> {
    return this.sql.tx(function* (q) {
      const accounts = yield* q.all<{account_id: number}>(
        'SELECT account_id FROM flow_processes GROUP BY account_id HAVING count(*) > ?', [keep])
      let removed = 0
      for (const {account_id} of accounts) {
        const edge = yield* q.get<{seq: number}>('SELECT seq FROM flow_processes WHERE account_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?',
          [account_id, keep - 1])
        if (!edge) continue
        removed += yield* q.run("DELETE FROM flow_processes WHERE account_id = ? AND seq < ? AND status != 'pending'", [account_id, edge.seq])
      }
      return removed
    })
  }

  // ---- crons -----------------------------------------------------------------------------

  async listCrons(accountId: number): Promise<CronJob[]> {
    return (await this.sql.all<CronRow>('SELECT * FROM crons WHERE account_id = ? ORDER BY id', [accountId])).map(toCron)
  }

  async getCron(accountId: number, id: number): Promise<CronJob | null> {
    if (!isRowId(id)) return null
    const row = await this.sql.get<CronRow>('SELECT * FROM crons WHERE account_id = ? AND id = ?', [accountId, id])
    return row ? toCron(row) : null
  }

  async createCron(accountId: number, userId: number | null, write: CronWrite, nextRunAt: string | null, maxCrons?: number): Promise<CronJob> {
    const at = now()
    const insert = `INSERT INTO crons (account_id, kind, target_code, schedule, timezone, active, next_run_at, created_by_id, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`
    const values = [accountId, write.kind, write.target_code, write.schedule, write.timezone, write.active ? 1 : 0, nextRunAt, userId, at, at]
    const who = this.journal.current()
    const row = await this.sql.tx(function* (q) {
      if (maxCrons !== undefined) {
        // The count and the insert under one lock per account: parallel creates (on any instance) queue here.
        yield* q.lock(`crons:${accountId}`)
        const counted = yield* q.get<{n: number}>('SELECT count(*) AS n FROM crons WHERE account_id = ?', [accountId])
        if (Number(counted!.n) >= maxCrons) throw cronQuotaReached(maxCrons)
      }
      const created = (yield* q.get<CronRow>(insert, values))!
      yield* appendEntry(q, who, {accountId, kind: 'cron', id: created.id, op: 'create', row: {...created}})
      return created
    })
    return toCron(row!)
  }

  async updateCron(accountId: number, id: number, write: CronWrite, nextRunAt: string | null): Promise<CronJob | null> {
    if (!isRowId(id)) return null
    const who = this.journal.current()
    const row = await this.sql.tx(function* (q) {
      const updated = yield* q.get<CronRow>(
        `UPDATE crons SET target_code = ?, schedule = ?, timezone = ?, active = ?, next_run_at = ?, updated_at = ?
         WHERE account_id = ? AND id = ? RETURNING *`,
        [write.target_code, write.schedule, write.timezone, write.active ? 1 : 0, nextRunAt, now(), accountId, id],
      )
      if (updated) yield* appendEntry(q, who, {accountId, kind: 'cron', id, op: 'update', row: {...updated}})
      return updated
    })
    return row ? toCron(row) : null
  }

  async deleteCron(accountId: number, id: number): Promise<boolean> {
    if (!isRowId(id)) return false
    const who = this.journal.current()
    return deleteChecked(this.sql, 'crons', '*', accountId, id, (row) => row, undefined,
      (q, row) => appendEntry(q, who, {accountId, kind: 'cron', id, op: 'delete', row, gone: true}))
  }

  async dueCrons(nowIso: string, limit: number): Promise<DueCron[]> {
    const rows = await this.sql.all<CronRow>(
      'SELECT * FROM crons WHERE active = 1 AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at, id LIMIT ?',
      [nowIso, limit])
    return rows.map((r) => ({...toCron(r), account_id: r.account_id}))
  }

  /** Compare-and-set on next_run_at: of N instances (or processes) that saw the same occurrence due, exactly one claims it. */
  async claimCron(id: number, expectedNextRunAt: string, nextRunAt: string | null, lastRunAt: string): Promise<boolean> {
    return (await this.sql.run('UPDATE crons SET next_run_at = ?, last_run_at = ? WHERE id = ? AND active = 1 AND next_run_at = ?',
      [nextRunAt, lastRunAt, id, expectedNextRunAt])) === 1
  }

  async setCronLastProcess(accountId: number, id: number, processId: string, at: string): Promise<void> {
    await this.sql.run('UPDATE crons SET last_flow_process_id = ?, last_run_at = ? WHERE account_id = ? AND id = ?',
      [processId, at, accountId, id])
  }

  // ---- db triggers (flows on db changes) -------------------------------------------------

  async listDbTriggers(accountId: number): Promise<DbTrigger[]> {
    return (await this.sql.all<DbTriggerRow>('SELECT * FROM db_triggers WHERE account_id = ? ORDER BY id', [accountId])).map(toDbTrigger)
  }

  async getDbTrigger(accountId: number, id: number): Promise<DbTrigger | null> {
    if (!isRowId(id)) return null
    const row = await this.sql.get<DbTriggerRow>('SELECT * FROM db_triggers WHERE account_id = ? AND id = ?', [accountId, id])
    return row ? toDbTrigger(row) : null
  }

  async createDbTrigger(accountId: number, userId: number | null, write: DbTriggerWrite, max?: number): Promise<DbTrigger> {
    const at = now()
    // It sees the changes committed after it: those at positions above the journal's head now.
    const insert = `INSERT INTO db_triggers (account_id, db_id, table_name, ops, target_code, active, after_pos, created_by_id, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, (SELECT coalesce(max(pos), 0) FROM journal), ?, ?, ?) RETURNING *`
    const values = [accountId, write.db_id, write.table_name, write.ops.join(','), write.target_code, write.active ? 1 : 0, userId, at, at]
    const who = this.journal.current()
    const row = await this.sql.tx(function* (q) {
      if (max !== undefined) {
        yield* q.lock(`db_triggers:${accountId}`)
        const counted = yield* q.get<{n: number}>('SELECT count(*) AS n FROM db_triggers WHERE account_id = ?', [accountId])
        if (Number(counted!.n) >= max) throw dbTriggerQuotaReached(max)
      }
      const created = (yield* q.get<DbTriggerRow>(insert, values))!
      yield* appendEntry(q, who, {accountId, kind: 'db_trigger', id: created.id, op: 'create', row: {...created}})
      return created
    })
    return toDbTrigger(row)
  }

  async updateDbTrigger(accountId: number, id: number, write: DbTriggerWrite): Promise<DbTrigger | null> {
    if (!isRowId(id)) return null
    const who = this.journal.current()
    const row = await this.sql.tx(function* (q) {
      const updated = yield* q.get<DbTriggerRow>(
        `UPDATE db_triggers SET db_id = ?, table_name = ?, ops = ?, target_code = ?, active = ?, updated_at = ?
         WHERE account_id = ? AND id = ? RETURNING *`,
        [write.db_id, write.table_name, write.ops.join(','), write.target_code, write.active ? 1 : 0, now(), accountId, id],
      )
      if (updated) yield* appendEntry(q, who, {accountId, kind: 'db_trigger', id, op: 'update', row: {...updated}})
      return updated
    })
    return row ? toDbTrigger(row) : null
  }

  async deleteDbTrigger(accountId: number, id: number): Promise<boolean> {
    if (!isRowId(id)) return false
    const who = this.journal.current()
    return deleteChecked(this.sql, 'db_triggers', '*', accountId, id, (row) => row, undefined,
      (q, row) => appendEntry(q, who, {accountId, kind: 'db_trigger', id, op: 'delete', row, gone: true}))
  }

  async activeDbTriggers(): Promise<ActiveDbTrigger[]> {
    const rows = await this.sql.all<DbTriggerRow>('SELECT * FROM db_triggers WHERE active = 1 ORDER BY id')
    return rows.map((r) => ({
      id: Number(r.id), account_id: Number(r.account_id), db_id: Number(r.db_id), table_name: r.table_name, ops: opsOf(r.ops),
      target_code: r.target_code, after_pos: Number(r.after_pos),
    }))
  }

  async journalHead(): Promise<number> {
    const row = await this.sql.get<{pos: number | null}>('SELECT max(pos) AS pos FROM journal')
    return Number(row?.pos ?? 0)
  }

  async changeCursor(): Promise<number> {
    const read = async () => (await this.sql.get<{pos: number}>("SELECT pos FROM change_cursor WHERE name = 'db_triggers'"))?.pos
    const pos = await read()
    if (pos !== undefined && pos !== null) return Number(pos)
    // The first start: from the head (changes before any trigger existed start nothing). Two instances may both insert: one wins.
    await this.sql.run(`INSERT INTO change_cursor (name, pos, updated_at) SELECT 'db_triggers', coalesce(max(pos), 0), ? FROM journal
      WHERE true ON CONFLICT (name) DO NOTHING`, [now()])
    return Number(await read())
  }

  async claimChanges(from: number, to: number, runs: NewProcess[]): Promise<boolean> {
    const at = now()
    return this.sql.tx(function* (q) {
      // Compare-and-set: on PostgreSQL a concurrent claim waits on the row and then finds it moved (0 rows).
      if ((yield* q.run("UPDATE change_cursor SET pos = ?, updated_at = ? WHERE name = 'db_triggers' AND pos = ?", [to, at, from])) !== 1) return false
      for (const run of runs) yield* insertProcess(q, {...run, id: run.id ?? randomUUID()}, at, true)
      return true
    })
  }
}

/**
 * Records a pending run (the one insert of flow_processes). `claim`: a run whose (trigger, change) is claimed
 * already is left out (a store restored to an earlier time may number new changes as runs it holds did).
 */
function* insertProcess(q: TxSql, input: NewProcess & {id: string}, at: string, claim = false): TxBody<void> {
  yield* q.run(
    `INSERT INTO flow_processes (id, account_id, flow_id, flow_code, status, trigger_kind, cron_id, db_trigger_id, change_pos, app_id, action, user_id,
       input, runner, started_at, created_at)
     VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)${claim ? ' ON CONFLICT DO NOTHING' : ''}`,
    [input.id, input.accountId, input.flowId, input.flowCode, input.trigger, input.cronId ?? null, input.dbTriggerId ?? null, input.changePos ?? null,
      input.appId ?? null, input.action ?? null, input.userId ?? null, JSON.stringify(input.input), input.runner, at, at],
  )
}

/** 422 when the code is taken: per account and kind, or on the whole server for a connector. */
function* assertCodeFree(q: TxSql, accountId: number, write: ResourceWrite, exceptId: number | null): TxBody<void> {
  const clash = write.kind === CONNECTOR_KIND
    ? yield* q.get('SELECT id FROM resources WHERE kind = ? AND code = ? AND id IS DISTINCT FROM ?', [write.kind, write.code, exceptId])
    : yield* q.get('SELECT id FROM resources WHERE account_id = ? AND kind = ? AND code = ? AND id IS DISTINCT FROM ?',
      [accountId, write.kind, write.code, exceptId])
  if (clash) throw codeTaken()
}
