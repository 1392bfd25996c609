import type {ActiveApp, DashboardPatch, DashboardRecord, DashboardsRepo, NewDashboard, Selection} from '../dashboards/types.js'
import {
  ACTIVE_APPS, becomesDefault, CLEAR_DEFAULT, COMPANY_DEFAULT, DELETE_SELECTION, type DashboardRow, INSERT_DASHBOARD,
  insertDashboardParams, LIST_VISIBLE, LIST_VISIBLE_IN_CONTEXT, SELECTION, toActiveApp, toDashboard, toSelection, UPDATE_DASHBOARD,
  updateDashboardParams, UPSERT_SELECTION,
} from '../dashboards/rows.js'
import type {PgDb} from './connection.js'

const now = () => new Date().toISOString()

/** Dashboards and per-user selections (see the SQLite driver for the meaning of the rows). */
export class PgDashboardsRepo implements DashboardsRepo {
  constructor(private readonly db: PgDb) {}

  async listVisible(accountId: number, userId: number, context?: string): Promise<DashboardRecord[]> {
    const rows = context === undefined
      ? await this.db.all<DashboardRow>(LIST_VISIBLE, [accountId, userId])
      : await this.db.all<DashboardRow>(LIST_VISIBLE_IN_CONTEXT, [accountId, context, userId])
    return rows.map(toDashboard)
  }

  async get(accountId: number, id: number): Promise<DashboardRecord | null> {
    const row = await this.db.get<DashboardRow>('SELECT * FROM dashboards WHERE account_id = ? AND id = ?', [accountId, id])
    return row ? toDashboard(row) : null
  }

  async create(accountId: number, userId: number, input: NewDashboard): Promise<DashboardRecord> {
    const row = await this.db.tx(async (q) => {
      if (input.is_default) await q.run(CLEAR_DEFAULT, [now(), accountId, input.context])
      const created = (await q.get<DashboardRow>(INSERT_DASHBOARD, insertDashboardParams(accountId, userId, input, now())))!
      await q.run(UPSERT_SELECTION, [accountId, userId, input.context, created.id])
      return created
    })
    return toDashboard(row)
  }

  async update(accountId: number, id: number, patch: DashboardPatch): Promise<DashboardRecord | null> {
    const row = await this.db.tx(async (q) => {
      const current = await q.get<DashboardRow>('SELECT * FROM dashboards WHERE account_id = ? AND id = ? FOR UPDATE', [accountId, id])
      if (!current) return undefined
      if (becomesDefault(current, patch)) await q.run(CLEAR_DEFAULT, [now(), accountId, current.context])
      return q.get<DashboardRow>(UPDATE_DASHBOARD, updateDashboardParams(current, patch, now()))
    })
    return row ? toDashboard(row) : null
  }

  async delete(accountId: number, id: number): Promise<boolean> {
    return (await this.db.tx((q) => q.run('DELETE FROM dashboards WHERE account_id = ? AND id = ?', [accountId, id]))) > 0
  }

  async companyDefault(accountId: number, context: string): Promise<DashboardRecord | null> {
    const row = await this.db.get<DashboardRow>(COMPANY_DEFAULT, [accountId, context])
    return row ? toDashboard(row) : null
  }

  async getSelection(accountId: number, userId: number, context: string): Promise<Selection> {
    return toSelection(await this.db.get<{dashboard_id: number | null}>(SELECTION, [accountId, userId, context]))
  }

  async setSelection(accountId: number, userId: number, context: string, selection: Selection): Promise<boolean> {
    return this.db.tx(async (q) => {
      if (selection.kind === 'default') {
        await q.run(DELETE_SELECTION, [accountId, userId, context])
        return true
      }
      if (selection.kind === 'builtin') {
        await q.run(UPSERT_SELECTION, [accountId, userId, context, null])
        return true
      }
      // FOR SHARE: the dashboard cannot be deleted between this check and the selection's insert.
      const visible = await q.get(
        'SELECT 1 FROM dashboards WHERE account_id = ? AND id = ? AND context = ? AND (shared = 1 OR created_by_id = ?) FOR SHARE',
        [accountId, selection.id, context, userId])
      if (!visible) return false
      await q.run(UPSERT_SELECTION, [accountId, userId, context, selection.id])
      return true
    })
  }

  async activeApps(accountId: number): Promise<ActiveApp[]> {
    return (await this.db.all<{id: string; name: string | null}>(ACTIVE_APPS, [accountId])).map(toActiveApp)
  }
}
