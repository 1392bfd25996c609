import {randomUUID} from 'node:crypto'
import type {CronJob, CronWrite} from '../../core/flows/crons.js'
import type {FlowProcess, ProcessFilter} from '../../core/flows/processes.js'
import {CONNECTOR_KIND, type Resource, type ResourceKind, type ResourceWrite} from '../../core/flows/resources.js'
import {cronQuotaReached} from '../../core/quotas.js'
import {type Sqlite, writeTx} from './connection.js'
import {codeTaken, type CronRow, type ProcessRow, RESOURCE_COLUMNS, type ResourceRow, toCron, toProcess, toResource} from '../flows/rows.js'
import type {DueCron, FlowsRepo, NewProcess, ProcessResult, ResourceFilter} from '../flows/types.js'
import {likeEscape} from '../like-escape.js'

const now = () => new Date().toISOString()

export class SqliteFlowsRepo implements FlowsRepo {
  constructor(private readonly db: Sqlite) {}

  // ---- resources -------------------------------------------------------------------------

  async listResources(accountId: number, filter: ResourceFilter): Promise<Resource[]> {
    const where = ['account_id = ?']
    const values: unknown[] = [accountId]
    if (filter.kind) where.push('kind = ?'), values.push(filter.kind)
    if (filter.code) where.push('code = ?'), values.push(filter.code)
    if (filter.q) {
      where.push("(name LIKE ? ESCAPE '\\' OR code LIKE ? ESCAPE '\\')")
      const like = `%${likeEscape(filter.q)}%`
      values.push(like, like)
    }
    const rows = this.db.prepare(`SELECT ${RESOURCE_COLUMNS} FROM resources WHERE ${where.join(' AND ')} ORDER BY id`).all(...values)
    return (rows as ResourceRow[]).map(toResource)
  }

  async getResource(accountId: number, id: number): Promise<Resource | null> {
    const row = this.db.prepare(`SELECT ${RESOURCE_COLUMNS} FROM resources WHERE account_id = ? AND id = ?`).get(accountId, id)
    return row ? toResource(row as ResourceRow) : null
  }

  async findResource(accountId: number, kind: ResourceKind, code: string): Promise<Resource | null> {
    const row = this.db.prepare(`SELECT ${RESOURCE_COLUMNS} FROM resources WHERE account_id = ? AND kind = ? AND code = ?`).get(accountId, kind, code)
    return row ? toResource(row as ResourceRow) : null
  }

  async findConnector(code: string): Promise<{accountId: number; resource: Resource} | null> {
    const row = this.db.prepare(`SELECT ${RESOURCE_COLUMNS} FROM resources WHERE kind = ? AND code = ?`).get(CONNECTOR_KIND, code) as ResourceRow | undefined
    return row ? {accountId: row.account_id, resource: toResource(row)} : null
  }

  async resourceSecret(accountId: number, id: number): Promise<string | null> {
    const row = this.db.prepare('SELECT secret_token FROM resources WHERE account_id = ? AND id = ?').get(accountId, id) as
      | {secret_token: string | null}
      | undefined
    return row?.secret_token ?? null
  }

  private assertCodeFree(accountId: number, write: ResourceWrite, exceptId: number | null): void {
    const clash = write.kind === CONNECTOR_KIND
      ? this.db.prepare('SELECT id FROM resources WHERE kind = ? AND code = ? AND id IS NOT ?').get(write.kind, write.code, exceptId)
      : this.db.prepare('SELECT id FROM resources WHERE account_id = ? AND kind = ? AND code = ? AND id IS NOT ?')
        .get(accountId, write.kind, write.code, exceptId)
    if (clash) throw codeTaken()
  }

  async createResource(accountId: number, userId: number | null, write: ResourceWrite): Promise<Resource> {
    const id = writeTx(this.db, () => {
      this.assertCodeFree(accountId, write, null)
      const at = now()
      const row = this.db.prepare(
        `INSERT INTO resources (account_id, kind, code, name, url, secret_token, fields, created_by_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      ).get(accountId, write.kind, write.code, write.name, write.url, write.secret_token ?? null, JSON.stringify(write.fields), userId, at, at) as {id: number}
      return row.id
    })
    return (await this.getResource(accountId, id))!
  }

  async updateResource(accountId: number, id: number, write: ResourceWrite): Promise<Resource | null> {
    const changed = writeTx(this.db, () => {
      if (!this.db.prepare('SELECT 1 FROM resources WHERE account_id = ? AND id = ?').get(accountId, id)) return false
      this.assertCodeFree(accountId, write, id)
      this.db.prepare('UPDATE resources SET code = ?, name = ?, url = ?, fields = ?, updated_at = ? WHERE account_id = ? AND id = ?')
        .run(write.code, write.name, write.url, JSON.stringify(write.fields), now(), accountId, id)
      if (write.secret_token !== undefined) {
        this.db.prepare('UPDATE resources SET secret_token = ? WHERE account_id = ? AND id = ?').run(write.secret_token, accountId, id)
      }
      return true
    })
    return changed ? this.getResource(accountId, id) : null
  }

  async deleteResource(accountId: number, id: number): Promise<boolean> {
    return writeTx(this.db, () => this.db.prepare('DELETE FROM resources WHERE account_id = ? AND id = ?').run(accountId, id).changes > 0)
  }

  // ---- flow processes --------------------------------------------------------------------

  async createProcess(input: NewProcess): Promise<FlowProcess> {
    const id = input.id ?? randomUUID()
    const at = now()
    writeTx(this.db, () =>
      this.db.prepare(
        `INSERT INTO flow_processes (id, account_id, flow_id, flow_code, status, trigger_kind, cron_id, app_id, action, user_id,
           input, runner, started_at, created_at)
         VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(id, input.accountId, input.flowId, input.flowCode, input.trigger, input.cronId ?? null, input.appId ?? null,
        input.action ?? null, input.userId ?? null, JSON.stringify(input.input), input.runner, at, at),
    )
    return (await this.getProcess(input.accountId, id))!
  }

  async finishProcess(accountId: number, id: string, result: ProcessResult): Promise<FlowProcess | null> {
    writeTx(this.db, () => {
      const row = this.db.prepare("SELECT started_at FROM flow_processes WHERE account_id = ? AND id = ? AND status = 'pending'").get(accountId, id) as
        | {started_at: string}
        | undefined
      if (!row) return
      const end = new Date()
      this.db.prepare(
        `UPDATE flow_processes SET status = ?, output = ?, error = ?, steps = ?, finished_at = ?, duration_ms = ?
         WHERE account_id = ? AND id = ? AND status = 'pending'`,
      ).run(result.status, result.output === null ? null : JSON.stringify(result.output), result.error, result.steps,
        end.toISOString(), Math.max(0, end.getTime() - Date.parse(row.started_at)), accountId, id)
    })
    return this.getProcess(accountId, id)
  }

  async getProcess(accountId: number, id: string): Promise<FlowProcess | null> {
    const row = this.db.prepare('SELECT * FROM flow_processes WHERE account_id = ? AND id = ?').get(accountId, id) as ProcessRow | undefined
    return row ? toProcess(row) : null
  }

  async listProcesses(accountId: number, filter: ProcessFilter): Promise<FlowProcess[]> {
    const where = ['account_id = ?']
    const values: unknown[] = [accountId]
    if (filter.status) where.push('status = ?'), values.push(filter.status)
    if (filter.trigger) where.push('trigger_kind = ?'), values.push(filter.trigger)
    if (filter.flow_code) where.push('flow_code = ?'), values.push(filter.flow_code)
    if (filter.cron_id) where.push('cron_id = ?'), values.push(filter.cron_id)
    if (filter.app_id) where.push('app_id = ?'), values.push(filter.app_id)
    const rows = this.db.prepare(`SELECT * FROM flow_processes WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ? OFFSET ?`)
      .all(...values, filter.limit, filter.offset) as ProcessRow[]
    return rows.map(toProcess)
  }

  async pendingRuns(accountId?: number): Promise<{id: string; account_id: number; runner: string | null}[]> {
    const sql = "SELECT id, account_id, runner FROM flow_processes WHERE status = 'pending'"
    return (accountId === undefined
      ? this.db.prepare(sql).all()
      : this.db.prepare(`${sql} AND account_id = ?`).all(accountId)) as {id: string; account_id: number; runner: string | null}[]
  }

  async interruptProcesses(ids: string[], error: string): Promise<number> {
    if (ids.length === 0) return 0
    return writeTx(this.db, () => {
      const update = this.db.prepare(
        `UPDATE flow_processes SET status = 'error', error = ?, finished_at = ?,
           duration_ms = CAST((julianday(?) - julianday(started_at)) * 86400000 AS INTEGER)
         WHERE id = ? AND status = 'pending'`,
      )
      let count = 0
      const at = now()
      for (const id of ids) count += update.run(error, at, at, id).changes
      return count
    })
  }

  async pruneProcesses(keep: number): Promise<number> {
    return writeTx(this.db, () => {
      const accounts = this.db.prepare('SELECT account_id, COUNT(*) AS n FROM flow_processes GROUP BY account_id HAVING n > ?').all(keep) as {account_id: number}[]
      let removed = 0
      for (const {account_id} of accounts) {
        const edge = this.db.prepare('SELECT seq FROM flow_processes WHERE account_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?').get(account_id, keep - 1) as
          | {seq: number}
          | undefined
        if (!edge) continue
        removed += this.db.prepare("DELETE FROM flow_processes WHERE account_id = ? AND seq < ? AND status != 'pending'").run(account_id, edge.seq).changes
      }
      return removed
    })
  }

  // ---- crons -----------------------------------------------------------------------------

  async listCrons(accountId: number): Promise<CronJob[]> {
    return (this.db.prepare('SELECT * FROM crons WHERE account_id = ? ORDER BY id').all(accountId) as CronRow[]).map(toCron)
  }

  async getCron(accountId: number, id: number): Promise<CronJob | null> {
    const row = this.db.prepare('SELECT * FROM crons WHERE account_id = ? AND id = ?').get(accountId, id) as CronRow | undefined
    return row ? toCron(row) : null
  }

  async createCron(accountId: number, userId: number | null, write: CronWrite, nextRunAt: string | null, maxCrons?: number): Promise<CronJob> {
    const row = writeTx(this.db, () => {
      if (maxCrons !== undefined) {
        const {n} = this.db.prepare('SELECT count(*) AS n FROM crons WHERE account_id = ?').get(accountId) as {n: number}
        if (n >= maxCrons) throw cronQuotaReached(maxCrons)
      }
      const at = now()
      return this.db.prepare(
        `INSERT INTO crons (account_id, kind, target_code, schedule, timezone, active, next_run_at, created_by_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      ).get(accountId, write.kind, write.target_code, write.schedule, write.timezone, write.active ? 1 : 0, nextRunAt, userId, at, at)
    }) as CronRow
    return toCron(row)
  }

  async updateCron(accountId: number, id: number, write: CronWrite, nextRunAt: string | null): Promise<CronJob | null> {
    const row = writeTx(this.db, () =>
      this.db.prepare(
        `UPDATE crons SET target_code = ?, schedule = ?, timezone = ?, active = ?, next_run_at = ?, updated_at = ?
         WHERE account_id = ? AND id = ? RETURNING *`,
      ).get(write.target_code, write.schedule, write.timezone, write.active ? 1 : 0, nextRunAt, now(), accountId, id),
    ) as CronRow | undefined
    return row ? toCron(row) : null
  }

  async deleteCron(accountId: number, id: number): Promise<boolean> {
    return writeTx(this.db, () => this.db.prepare('DELETE FROM crons WHERE account_id = ? AND id = ?').run(accountId, id).changes > 0)
  }

  async dueCrons(nowIso: string, limit: number): Promise<DueCron[]> {
    const rows = this.db.prepare(
      'SELECT * FROM crons WHERE active = 1 AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at, id LIMIT ?',
    ).all(nowIso, limit) as CronRow[]
    return rows.map((r) => ({...toCron(r), account_id: r.account_id}))
  }

  async claimCron(id: number, expectedNextRunAt: string, nextRunAt: string | null, lastRunAt: string): Promise<boolean> {
    return writeTx(this.db, () =>
      this.db.prepare('UPDATE crons SET next_run_at = ?, last_run_at = ? WHERE id = ? AND active = 1 AND next_run_at = ?')
        .run(nextRunAt, lastRunAt, id, expectedNextRunAt).changes === 1,
    )
  }

  async setCronLastProcess(accountId: number, id: number, processId: string, at: string): Promise<void> {
    writeTx(this.db, () =>
      this.db.prepare('UPDATE crons SET last_flow_process_id = ?, last_run_at = ? WHERE account_id = ? AND id = ?').run(processId, at, accountId, id),
    )
  }
}
