import type {LayoutItem} from '../../core/contract/dashboards.js'
import type {DashboardContext} from '../../core/dashboards/tiles.js'
import type {ActiveApp, DashboardPatch, DashboardRecord, DashboardsRepo, NewDashboard, Selection} from '../dashboards/types.js'
import type {PgDb, Q} from './connection.js'

interface Row {
  id: number; account_id: number; name: string; context: string; layout: string; shared: number; is_default: number
  created_by_id: number; created_at: string; updated_at: string
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

/** Dashboards and per-user selections (see the SQLite driver for the meaning of the rows). */
export class PgDashboardsRepo implements DashboardsRepo {
  constructor(private readonly db: PgDb) {}

  async listVisible(accountId: number, userId: number, context?: string): Promise<DashboardRecord[]> {
    const rows = context === undefined
      ? await this.db.all<Row>('SELECT * FROM dashboards WHERE account_id = ? AND (shared = 1 OR created_by_id = ?) ORDER BY id', [accountId, userId])
      : await this.db.all<Row>('SELECT * FROM dashboards WHERE account_id = ? AND context = ? AND (shared = 1 OR created_by_id = ?) ORDER BY id',
        [accountId, context, userId])
    return rows.map(toRecord)
  }

  async get(accountId: number, id: number): Promise<DashboardRecord | null> {
    const row = await this.db.get<Row>('SELECT * FROM dashboards WHERE account_id = ? AND id = ?', [accountId, id])
    return row ? toRecord(row) : null
  }

  async create(accountId: number, userId: number, input: NewDashboard): Promise<DashboardRecord> {
    const row = await this.db.tx(async (q) => {
      if (input.is_default) await clearDefault(q, accountId, input.context)
      const ts = now()
      const created = (await q.get<Row>(
        `INSERT INTO dashboards (account_id, name, context, layout, shared, is_default, created_by_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        [accountId, input.name, input.context, JSON.stringify(input.layout), input.shared ? 1 : 0, input.is_default ? 1 : 0, userId, ts, ts],
      ))!
      await upsertSelection(q, accountId, userId, input.context, created.id)
      return created
    })
    return toRecord(row)
  }

  async update(accountId: number, id: number, patch: DashboardPatch): Promise<DashboardRecord | null> {
    const row = await this.db.tx(async (q) => {
      const current = await q.get<Row>('SELECT * FROM dashboards WHERE account_id = ? AND id = ? FOR UPDATE', [accountId, id])
      if (!current) return undefined
      if (patch.is_default === true && current.is_default !== 1) await clearDefault(q, accountId, current.context)
      const next = {
        name: patch.name ?? current.name,
        layout: patch.layout ? JSON.stringify(patch.layout) : current.layout,
        is_default: patch.is_default === undefined ? current.is_default : patch.is_default ? 1 : 0,
      }
      return q.get<Row>('UPDATE dashboards SET name = ?, layout = ?, is_default = ?, updated_at = ? WHERE account_id = ? AND id = ? RETURNING *',
        [next.name, next.layout, next.is_default, now(), accountId, id])
    })
    return row ? toRecord(row) : null
  }

  async delete(accountId: number, id: number): Promise<boolean> {
    return (await this.db.tx((q) => q.run('DELETE FROM dashboards WHERE account_id = ? AND id = ?', [accountId, id]))) > 0
  }

  async companyDefault(accountId: number, context: string): Promise<DashboardRecord | null> {
    const row = await this.db.get<Row>('SELECT * FROM dashboards WHERE account_id = ? AND context = ? AND shared = 1 AND is_default = 1',
      [accountId, context])
    return row ? toRecord(row) : null
  }

  async getSelection(accountId: number, userId: number, context: string): Promise<Selection> {
    const row = await this.db.get<{dashboard_id: number | null}>(
      'SELECT dashboard_id FROM dashboard_selections WHERE account_id = ? AND user_id = ? AND context = ?', [accountId, userId, context])
    if (!row) return {kind: 'default'}
    return row.dashboard_id === null ? {kind: 'builtin'} : {kind: 'dashboard', id: row.dashboard_id}
  }

  async setSelection(accountId: number, userId: number, context: string, selection: Selection): Promise<boolean> {
    return this.db.tx(async (q) => {
      if (selection.kind === 'default') {
        await q.run('DELETE FROM dashboard_selections WHERE account_id = ? AND user_id = ? AND context = ?', [accountId, userId, context])
        return true
      }
      if (selection.kind === 'builtin') {
        await upsertSelection(q, accountId, userId, context, null)
        return true
      }
      // FOR SHARE: the dashboard cannot be deleted between this check and the selection's insert.
      const visible = await q.get(
        'SELECT 1 FROM dashboards WHERE account_id = ? AND id = ? AND context = ? AND (shared = 1 OR created_by_id = ?) FOR SHARE',
        [accountId, selection.id, context, userId])
      if (!visible) return false
      await upsertSelection(q, accountId, userId, context, selection.id)
      return true
    })
  }

  async activeApps(accountId: number): Promise<ActiveApp[]> {
    const rows = await this.db.all<{id: string; name: string | null}>(
      'SELECT id, name FROM apps WHERE account_id = ? AND active = 1 ORDER BY name, id', [accountId])
    return rows.map((r) => ({id: String(r.id).toLowerCase(), name: r.name ?? ''}))
  }
}

/** Clears the company default of a context (inside the caller's transaction). */
async function clearDefault(q: Q, accountId: number, context: string): Promise<void> {
  await q.run('UPDATE dashboards SET is_default = 0, updated_at = ? WHERE account_id = ? AND context = ? AND is_default = 1',
    [now(), accountId, context])
}

/** `dashboardId` null = the standard layout. */
async function upsertSelection(q: Q, accountId: number, userId: number, context: string, dashboardId: number | null): Promise<void> {
  await q.run(
    `INSERT INTO dashboard_selections (account_id, user_id, context, dashboard_id) VALUES (?, ?, ?, ?)
     ON CONFLICT (user_id, context) DO UPDATE SET dashboard_id = excluded.dashboard_id`,
    [accountId, userId, context, dashboardId])
}
