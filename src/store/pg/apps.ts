import {randomUUID} from 'node:crypto'
import {notFound} from '../../core/errors.js'
import {
  ACTION_TARGET_BY_ID, type ActionTargetRow, type AppRow, type AppSummaryRow, INSERT_APP, LIST_COLUMNS, insertAppParams, nowWithOffset, toActionTarget, toAppRecord, toAppSummary,
  UPDATE_APP, updateAppParams, urlCodeTaken,
} from '../apps/rows.js'
import type {AppActionTarget, AppAsset, AppBuild, AppData, AppListQuery, AppRecord, AppsRepo, AppSummary} from '../apps/types.js'
import {isUniqueViolation, type PgDb, type Q} from './connection.js'
import {likeEscape} from '../like-escape.js'

const ASSET_COLUMNS = 'path, content_type, size, sha256, updated_at'

export class PgAppsRepo implements AppsRepo {
  constructor(private readonly db: PgDb) {}

  async actionTarget(appId: string): Promise<AppActionTarget | null> {
    const row = await this.db.get<ActionTargetRow>(ACTION_TARGET_BY_ID, [appId])
    return row ? toActionTarget(row) : null
  }

  async list(accountId: number, query: AppListQuery = {}): Promise<AppSummary[]> {
    const where = ['account_id = ?']
    const params: unknown[] = [accountId]
    if (query.q) {
      // SQLite's LIKE: ASCII letters match either case.
      where.push("(svc_fold(name) LIKE svc_fold(?) ESCAPE '\\' OR svc_fold(url_code) LIKE svc_fold(?) ESCAPE '\\')")
      const like = `%${likeEscape(query.q)}%`
      params.push(like, like)
    }
    if (query.app_engine) {
      where.push('app_engine = ?')
      params.push(query.app_engine)
    }
    if (query.active !== undefined) {
      where.push('active = ?')
      params.push(query.active ? 1 : 0)
    }
    return (await this.db.all<AppSummaryRow>(`SELECT ${LIST_COLUMNS} FROM apps WHERE ${where.join(' AND ')} ORDER BY created_at, id`, params)).map(toAppSummary)
  }

  async get(accountId: number, id: string): Promise<AppRecord | null> {
    const row = await this.db.get<AppRow>('SELECT * FROM apps WHERE account_id = ? AND id = ?', [accountId, id])
    return row ? toAppRecord(row) : null
  }

  async getById(id: string): Promise<AppRecord | null> {
    const row = await this.db.get<AppRow>('SELECT * FROM apps WHERE id = ?', [id])
    return row ? toAppRecord(row) : null
  }

  async findByUrlCode(urlCode: string): Promise<AppRecord[]> {
    return (await this.db.all<AppRow>('SELECT * FROM apps WHERE url_code = ? ORDER BY created_at, id', [urlCode])).map(toAppRecord)
  }

  async urlCodeTaken(accountId: number, urlCode: string, exceptId?: string): Promise<boolean> {
    void accountId // url_codes are unique server-wide: an app's host and `/a/:url_code` name no account
    return !!(await this.db.get('SELECT 1 FROM apps WHERE url_code = ? AND id != ?', [urlCode, exceptId ?? '']))
  }

  async create(accountId: number, userId: number, input: AppData, build: AppBuild): Promise<AppRecord> {
    const id = randomUUID()
    const at = nowWithOffset()
    try {
      // url_codes are unique server-wide (checked here); the unique (account_id, url_code) index decides
      // between concurrent creates in one account.
      await this.db.tx(async (q) => {
        await lockUrlCode(q, input.url_code)
        if (await q.get('SELECT 1 FROM apps WHERE url_code = ?', [input.url_code])) throw urlCodeTaken()
        await q.run(INSERT_APP, insertAppParams(id, accountId, userId, input, build, at))
      })
    } catch (e) {
      if (isUniqueViolation(e)) throw urlCodeTaken()
      throw e
    }
    return (await this.get(accountId, id))!
  }

  async update(accountId: number, id: string, userId: number, input: AppData, build: AppBuild): Promise<AppRecord> {
    let changed: number
    try {
      changed = await this.db.tx(async (q) => {
        await lockUrlCode(q, input.url_code)
        if (await q.get('SELECT 1 FROM apps WHERE url_code = ? AND id != ?', [input.url_code, id])) throw urlCodeTaken()
        return q.run(UPDATE_APP, updateAppParams(accountId, id, userId, input, build, nowWithOffset()))
      })
    } catch (e) {
      if (isUniqueViolation(e)) throw urlCodeTaken()
      throw e
    }
    if (changed === 0) throw notFound()
    return (await this.get(accountId, id))!
  }

  async delete(accountId: number, id: string): Promise<boolean> {
    return (await this.db.tx((q) => q.run('DELETE FROM apps WHERE account_id = ? AND id = ?', [accountId, id]))) > 0
  }

  async listAssets(appId: string): Promise<AppAsset[]> {
    const rows = await this.db.all<AppAsset>(`SELECT ${ASSET_COLUMNS} FROM app_assets WHERE app_id = ? ORDER BY path`, [appId])
    return rows.map((r) => ({...r, size: Number(r.size)}))
  }

  async getAsset(appId: string, path: string): Promise<(AppAsset & {data: Buffer}) | null> {
    const row = await this.db.get<AppAsset & {data: string}>(`SELECT ${ASSET_COLUMNS}, data FROM app_assets WHERE app_id = ? AND path = ?`, [appId, path])
    return row ? {...row, size: Number(row.size), data: Buffer.from(row.data, 'base64')} : null
  }

  async putAsset(appId: string, asset: AppAsset & {data: Buffer}, limits: {maxTotal: number; maxCount: number}): Promise<boolean> {
    return this.db.tx(async (q) => {
      // One writer per app at a time: the sum below stays true until the insert.
      await q.get('SELECT id FROM apps WHERE id = ? FOR UPDATE', [appId])
      const others = (await q.get<{total: string | number; n: string | number}>(
        'SELECT COALESCE(SUM(size), 0) AS total, COUNT(*) AS n FROM app_assets WHERE app_id = ? AND path != ?', [appId, asset.path]))!
      if (Number(others.total) + asset.size > limits.maxTotal || Number(others.n) + 1 > limits.maxCount) return false
      await q.run(`INSERT INTO app_assets (app_id, path, content_type, size, sha256, data, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (app_id, path) DO UPDATE SET content_type = excluded.content_type, size = excluded.size, sha256 = excluded.sha256,
        data = excluded.data, updated_at = excluded.updated_at`,
      [appId, asset.path, asset.content_type, asset.size, asset.sha256, asset.data.toString('base64'), asset.updated_at])
      return true
    })
  }

  async deleteAsset(appId: string, path: string): Promise<boolean> {
    return (await this.db.tx((q) => q.run('DELETE FROM app_assets WHERE app_id = ? AND path = ?', [appId, path]))) > 0
  }

  async cachedBuild(hash: string): Promise<AppBuild | null> {
    const row = await this.db.get<AppBuild>('SELECT hash, app_code, css_code, app_build_time, css_build_time FROM app_builds WHERE hash = ?', [hash])
    return row ?? null
  }

  async saveBuild(build: AppBuild): Promise<void> {
    await this.db.run(
      `INSERT INTO app_builds (hash, app_code, css_code, app_build_time, css_build_time, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (hash) DO NOTHING`,
      [build.hash, build.app_code, build.css_code, build.app_build_time, build.css_build_time, nowWithOffset()])
  }
}

/**
 * url_codes are unique server-wide, but the unique index is per account: two instances creating
 * the same url_code in two accounts at once take this transaction lock on the code first, so the
 * second one's check sees the first one's row.
 */
async function lockUrlCode(q: Q, urlCode: string): Promise<void> {
  await q.get("SELECT pg_advisory_xact_lock(hashtext('svc:app_url_code:' || ?::text))", [urlCode])
}
