import type {LayoutItem} from '../../core/contract/dashboards.js'
import type {DashboardContext} from '../../core/dashboards/tiles.js'
import {type Sqlite, writeTx} from './connection.js'
import type {ActiveApp, DashboardPatch, DashboardRecord, DashboardsRepo, NewDashboard, Selection} from '../dashboards/types.js'

interface Row {
  id: number
  account_id: number
  name: string
  context: string
  layout: string
  shared: number
  is_default: number
  created_by_id: number
  created_at: string
  updated_at: string
}

const now = () => new Date().toISOString()

function toRecord(row: Row): DashboardRecord {
  return {
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    context: row.context as DashboardContext, // written only through the contract's enum
    layout: JSON.parse(row.layout) as LayoutItem[],
    shared: row.shared === 1,
    is_default: row.is_default === 1,
    created_by_id: row.created_by_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

/**
 * Dashboards and per-user selections. A selection row with `dashboard_id` NULL means the
 * standard layout; no row means the company default. Deleting a dashboard deletes the rows that
 * chose it (ON DELETE CASCADE), so those users fall back to the company default, else the standard layout.
 */
export class SqliteDashboardsRepo implements DashboardsRepo {
  constructor(private readonly db: Sqlite) {}

  private row(accountId: number, id: number): Row | undefined {
    return this.db.prepare('SELECT * FROM dashboards WHERE account_id = ? AND id = ?').get(accountId, id) as Row | undefined
  }

  async listVisible(accountId: number, userId: number, context?: string): Promise<DashboardRecord[]> {
    const rows = context === undefined
      ? this.db.prepare('SELECT * FROM dashboards WHERE account_id = ? AND (shared = 1 OR created_by_id = ?) ORDER BY id').all(accountId, userId)
      : this.db.prepare('SELECT * FROM dashboards WHERE account_id = ? AND context = ? AND (shared = 1 OR created_by_id = ?) ORDER BY id')
        .all(accountId, context, userId)
    return (rows as Row[]).map(toRecord)
  }

  async get(accountId: number, id: number): Promise<DashboardRecord | null> {
    const row = this.row(accountId, id)
    return row ? toRecord(row) : null
  }

  async create(accountId: number, userId: number, input: NewDashboard): Promise<DashboardRecord> {
    const row = writeTx(this.db, () => {
      if (input.is_default) this.clearDefault(accountId, input.context)
      const ts = now()
      const created = this.db.prepare(
        `INSERT INTO dashboards (account_id, name, context, layout, shared, is_default, created_by_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      ).get(accountId, input.name, input.context, JSON.stringify(input.layout), input.shared ? 1 : 0, input.is_default ? 1 : 0, userId, ts, ts) as Row
      this.upsertSelection(accountId, userId, input.context, created.id)
      return created
    })
    return toRecord(row)
  }

  async update(accountId: number, id: number, patch: DashboardPatch): Promise<DashboardRecord | null> {
    const row = writeTx(this.db, () => {
      const current = this.row(accountId, id)
      if (!current) return undefined
      if (patch.is_default === true && current.is_default !== 1) this.clearDefault(accountId, current.context)
      const next = {
        name: patch.name ?? current.name,
        layout: patch.layout ? JSON.stringify(patch.layout) : current.layout,
        is_default: patch.is_default === undefined ? current.is_default : patch.is_default ? 1 : 0,
      }
      return this.db.prepare('UPDATE dashboards SET name = ?, layout = ?, is_default = ?, updated_at = ? WHERE account_id = ? AND id = ? RETURNING *')
        .get(next.name, next.layout, next.is_default, now(), accountId, id) as Row
    })
    return row ? toRecord(row) : null
  }

  async delete(accountId: number, id: number): Promise<boolean> {
    return writeTx(this.db, () => this.db.prepare('DELETE FROM dashboards WHERE account_id = ? AND id = ?').run(accountId, id).changes > 0)
  }

  async companyDefault(accountId: number, context: string): Promise<DashboardRecord | null> {
    const row = this.db.prepare('SELECT * FROM dashboards WHERE account_id = ? AND context = ? AND shared = 1 AND is_default = 1')
      .get(accountId, context) as Row | undefined
    return row ? toRecord(row) : null
  }

  async getSelection(accountId: number, userId: number, context: string): Promise<Selection> {
    const row = this.db.prepare('SELECT dashboard_id FROM dashboard_selections WHERE account_id = ? AND user_id = ? AND context = ?')
      .get(accountId, userId, context) as {dashboard_id: number | null} | undefined
    if (!row) return {kind: 'default'}
    return row.dashboard_id === null ? {kind: 'builtin'} : {kind: 'dashboard', id: row.dashboard_id}
  }

  async setSelection(accountId: number, userId: number, context: string, selection: Selection): Promise<boolean> {
    return writeTx(this.db, () => {
      if (selection.kind === 'default') {
        this.db.prepare('DELETE FROM dashboard_selections WHERE account_id = ? AND user_id = ? AND context = ?').run(accountId, userId, context)
        return true
      }
      if (selection.kind === 'builtin') {
        this.upsertSelection(accountId, userId, context, null)
        return true
      }
      const visible = this.db.prepare(
        'SELECT 1 FROM dashboards WHERE account_id = ? AND id = ? AND context = ? AND (shared = 1 OR created_by_id = ?)',
      ).get(accountId, selection.id, context, userId)
      if (!visible) return false
      this.upsertSelection(accountId, userId, context, selection.id)
      return true
    })
  }

  async activeApps(accountId: number): Promise<ActiveApp[]> {
    // The apps table belongs to the apps area; until its migration has run there is no app to place.
    const table = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'apps'").get()
    if (!table) return []
    const rows = this.db.prepare('SELECT id, name FROM apps WHERE account_id = ? AND active = 1 ORDER BY name, id').all(accountId) as
      {id: string; name: string | null}[]
    return rows.map((r) => ({id: String(r.id).toLowerCase(), name: r.name ?? ''}))
  }

  /** Call inside a write transaction. */
  private clearDefault(accountId: number, context: string): void {
    this.db.prepare('UPDATE dashboards SET is_default = 0, updated_at = ? WHERE account_id = ? AND context = ? AND is_default = 1')
      .run(now(), accountId, context)
  }

  /** Call inside a write transaction. `dashboardId` null = the standard layout. */
  private upsertSelection(accountId: number, userId: number, context: string, dashboardId: number | null): void {
    this.db.prepare(
      `INSERT INTO dashboard_selections (account_id, user_id, context, dashboard_id) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, context) DO UPDATE SET dashboard_id = excluded.dashboard_id`,
    ).run(accountId, userId, context, dashboardId)
  }
}
