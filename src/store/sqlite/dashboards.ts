import {type Sqlite, writeTx} from './connection.js'
import type {ActiveApp, DashboardPatch, DashboardRecord, DashboardsRepo, NewDashboard, Selection} from '../dashboards/types.js'
import {
  ACTIVE_APPS, becomesDefault, CLEAR_DEFAULT, COMPANY_DEFAULT, DELETE_SELECTION, type DashboardRow, INSERT_DASHBOARD,
  insertDashboardParams, LIST_VISIBLE, LIST_VISIBLE_IN_CONTEXT, SELECTION, toActiveApp, toDashboard, toSelection, UPDATE_DASHBOARD,
  updateDashboardParams, UPSERT_SELECTION,
} from '../dashboards/rows.js'

const now = () => new Date().toISOString()

/**
 * Dashboards and per-user selections. A selection row with `dashboard_id` NULL means the
 * standard layout; no row means the company default. Deleting a dashboard deletes the rows that
 * chose it (ON DELETE CASCADE), so those users fall back to the company default, else the standard layout.
 */
export class SqliteDashboardsRepo implements DashboardsRepo {
  constructor(private readonly db: Sqlite) {}

  private row(accountId: number, id: number): DashboardRow | undefined {
    return this.db.prepare('SELECT * FROM dashboards WHERE account_id = ? AND id = ?').get(accountId, id) as DashboardRow | undefined
  }

  async listVisible(accountId: number, userId: number, context?: string): Promise<DashboardRecord[]> {
    const rows = context === undefined
      ? this.db.prepare(LIST_VISIBLE).all(accountId, userId)
      : this.db.prepare(LIST_VISIBLE_IN_CONTEXT).all(accountId, context, userId)
    return (rows as DashboardRow[]).map(toDashboard)
  }

  async get(accountId: number, id: number): Promise<DashboardRecord | null> {
    const row = this.row(accountId, id)
    return row ? toDashboard(row) : null
  }

  async create(accountId: number, userId: number, input: NewDashboard): Promise<DashboardRecord> {
    const row = writeTx(this.db, () => {
      if (input.is_default) this.db.prepare(CLEAR_DEFAULT).run(now(), accountId, input.context)
      const created = this.db.prepare(INSERT_DASHBOARD).get(...insertDashboardParams(accountId, userId, input, now())) as DashboardRow
      this.db.prepare(UPSERT_SELECTION).run(accountId, userId, input.context, created.id)
      return created
    })
    return toDashboard(row)
  }

  async update(accountId: number, id: number, patch: DashboardPatch): Promise<DashboardRecord | null> {
    const row = writeTx(this.db, () => {
      const current = this.row(accountId, id)
      if (!current) return undefined
      if (becomesDefault(current, patch)) this.db.prepare(CLEAR_DEFAULT).run(now(), accountId, current.context)
      return this.db.prepare(UPDATE_DASHBOARD).get(...updateDashboardParams(current, patch, now())) as DashboardRow
    })
    return row ? toDashboard(row) : null
  }

  async delete(accountId: number, id: number): Promise<boolean> {
    return writeTx(this.db, () => this.db.prepare('DELETE FROM dashboards WHERE account_id = ? AND id = ?').run(accountId, id).changes > 0)
  }

  async companyDefault(accountId: number, context: string): Promise<DashboardRecord | null> {
    const row = this.db.prepare(COMPANY_DEFAULT).get(accountId, context) as DashboardRow | undefined
    return row ? toDashboard(row) : null
  }

  async getSelection(accountId: number, userId: number, context: string): Promise<Selection> {
    return toSelection(this.db.prepare(SELECTION).get(accountId, userId, context) as {dashboard_id: number | null} | undefined)
  }

  async setSelection(accountId: number, userId: number, context: string, selection: Selection): Promise<boolean> {
    return writeTx(this.db, () => {
      if (selection.kind === 'default') {
        this.db.prepare(DELETE_SELECTION).run(accountId, userId, context)
        return true
      }
      if (selection.kind === 'builtin') {
        this.db.prepare(UPSERT_SELECTION).run(accountId, userId, context, null)
        return true
      }
      const visible = this.db.prepare(
        'SELECT 1 FROM dashboards WHERE account_id = ? AND id = ? AND context = ? AND (shared = 1 OR created_by_id = ?)',
      ).get(accountId, selection.id, context, userId)
      if (!visible) return false
      this.db.prepare(UPSERT_SELECTION).run(accountId, userId, context, selection.id)
      return true
    })
  }

  async activeApps(accountId: number): Promise<ActiveApp[]> {
    // The apps table belongs to the apps area; until its migration has run there is no app to place.
    const table = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'apps'").get()
    if (!table) return []
    return (this.db.prepare(ACTIVE_APPS).all(accountId) as {id: string; name: string | null}[]).map(toActiveApp)
  }
}
