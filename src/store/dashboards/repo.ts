/** The dashboards area's repository, written once over the SQL port. */
import {appendEntry, JournalContext} from '../journal/writer.js'
import {deleteChecked, type SqlPort} from '../sql/port.js'
import {
  ACTIVE_APPS, becomesDefault, CLEAR_DEFAULT, COMPANY_DEFAULT, DELETE_SELECTION, type DashboardRow, INSERT_DASHBOARD,
  insertDashboardParams, LIST_VISIBLE, LIST_VISIBLE_IN_CONTEXT, SELECTION, toActiveApp, toDashboard, toSelection, UPDATE_DASHBOARD,
  updateDashboardParams, UPSERT_SELECTION,
} from './rows.js'
import type {ActiveApp, DashboardPatch, DashboardRecord, DashboardsRepo, NewDashboard, Selection} from './types.js'

const now = () => new Date().toISOString()

/**
 * Dashboards and per-user selections. A selection row with `dashboard_id` NULL means the
 * standard layout; no row means the company default. Deleting a dashboard deletes the rows that
 * chose it (ON DELETE CASCADE), so those users fall back to the company default, else the standard layout.
 */
export class SqlDashboardsRepo implements DashboardsRepo {
  constructor(private readonly sql: SqlPort, private readonly journal = new JournalContext()) {}

  async listVisible(accountId: number, userId: number, context?: string): Promise<DashboardRecord[]> {
    const rows = context === undefined
      ? await this.sql.all<DashboardRow>(LIST_VISIBLE, [accountId, userId])
      : await this.sql.all<DashboardRow>(LIST_VISIBLE_IN_CONTEXT, [accountId, context, userId])
    return rows.map(toDashboard)
  }

  async get(accountId: number, id: number): Promise<DashboardRecord | null> {
    const row = await this.sql.get<DashboardRow>('SELECT * FROM dashboards WHERE account_id = ? AND id = ?', [accountId, id])
    return row ? toDashboard(row) : null
  }

  async create(accountId: number, userId: number, input: NewDashboard): Promise<DashboardRecord> {
    const who = this.journal.current()
    const row = await this.sql.tx(function* (q) {
      if (input.is_default) yield* q.run(CLEAR_DEFAULT, [now(), accountId, input.context])
      const created = (yield* q.get<DashboardRow>(INSERT_DASHBOARD, insertDashboardParams(accountId, userId, input, now())))!
      yield* q.run(UPSERT_SELECTION, [accountId, userId, input.context, created.id])
      yield* appendEntry(q, who, {accountId, kind: 'dashboard', id: created.id, op: 'create', row: {...created}})
      return created
    })
    return toDashboard(row)
  }

  async update(accountId: number, id: number, patch: DashboardPatch, check?: (current: DashboardRecord) => void): Promise<DashboardRecord | null> {
    const {forUpdate} = this.sql.dialect
    const who = this.journal.current()
    const row = await this.sql.tx(function* (q) {
      const current = yield* q.get<DashboardRow>(`SELECT * FROM dashboards WHERE account_id = ? AND id = ?${forUpdate}`, [accountId, id])
      if (!current) return undefined
      check?.(toDashboard(current))
      if (becomesDefault(current, patch)) yield* q.run(CLEAR_DEFAULT, [now(), accountId, current.context])
      const updated = yield* q.get<DashboardRow>(UPDATE_DASHBOARD, updateDashboardParams(current, patch, now()))
      if (updated) yield* appendEntry(q, who, {accountId, kind: 'dashboard', id, op: 'update', row: {...updated}})
      return updated
    })
    return row ? toDashboard(row) : null
  }

  async delete(accountId: number, id: number, check?: (current: DashboardRecord) => void): Promise<boolean> {
    const who = this.journal.current()
    return deleteChecked(this.sql, 'dashboards', '*', accountId, id, toDashboard, check,
      (q, row) => appendEntry(q, who, {accountId, kind: 'dashboard', id, op: 'delete', row, gone: true}))
  }

  async companyDefault(accountId: number, context: string): Promise<DashboardRecord | null> {
    const row = await this.sql.get<DashboardRow>(COMPANY_DEFAULT, [accountId, context])
    return row ? toDashboard(row) : null
  }

  async getSelection(accountId: number, userId: number, context: string): Promise<Selection> {
    return toSelection(await this.sql.get<{dashboard_id: number | null}>(SELECTION, [accountId, userId, context]))
  }

  async setSelection(accountId: number, userId: number, context: string, selection: Selection): Promise<boolean> {
    const {forShare} = this.sql.dialect
    return this.sql.tx(function* (q) {
      if (selection.kind === 'default') {
        yield* q.run(DELETE_SELECTION, [accountId, userId, context])
        return true
      }
      if (selection.kind === 'builtin') {
        yield* q.run(UPSERT_SELECTION, [accountId, userId, context, null])
        return true
      }
      // Locked for share: the dashboard cannot be deleted between this check and the selection's insert.
      const visible = yield* q.get(
        `SELECT 1 FROM dashboards WHERE account_id = ? AND id = ? AND context = ? AND (shared = 1 OR created_by_id = ?)${forShare}`,
        [accountId, selection.id, context, userId])
      if (!visible) return false
      yield* q.run(UPSERT_SELECTION, [accountId, userId, context, selection.id])
      return true
    })
  }

  async activeApps(accountId: number): Promise<ActiveApp[]> {
    return (await this.sql.all<{id: string; name: string | null}>(ACTIVE_APPS, [accountId])).map(toActiveApp)
  }
}
