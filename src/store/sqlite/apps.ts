import {randomUUID} from 'node:crypto'
import {notFound} from '../../core/errors.js'
import {type Sqlite, writeTx} from './connection.js'
import {
  ACTION_TARGET_BY_ID, type ActionTargetRow, type AppRow, type AppSummaryRow, INSERT_APP, LIST_COLUMNS, insertAppParams, nowWithOffset, toActionTarget, toAppRecord, toAppSummary,
  UPDATE_APP, updateAppParams, urlCodeTaken,
} from '../apps/rows.js'
import type {AppActionTarget, AppAsset, AppBuild, AppData, AppListQuery, AppRecord, AppsRepo, AppSummary} from '../apps/types.js'
import {likeEscape} from '../like-escape.js'

const ASSET_COLUMNS = 'path, content_type, size, sha256, updated_at'

const isUniqueViolation = (e: unknown) => (e as {code?: string}).code === 'SQLITE_CONSTRAINT_UNIQUE'

export class SqliteAppsRepo implements AppsRepo {
  constructor(private readonly db: Sqlite) {}

  async actionTarget(appId: string): Promise<AppActionTarget | null> {
    const row = this.db.prepare(ACTION_TARGET_BY_ID).get(appId) as ActionTargetRow | undefined
    return row ? toActionTarget(row) : null
  }

  async list(accountId: number, query: AppListQuery = {}): Promise<AppSummary[]> {
    const where = ['account_id = ?']
    const params: unknown[] = [accountId]
    if (query.q) {
      where.push("(name LIKE ? ESCAPE '\\' OR url_code LIKE ? ESCAPE '\\')")
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
    const rows = this.db.prepare(`SELECT ${LIST_COLUMNS} FROM apps WHERE ${where.join(' AND ')} ORDER BY created_at, id`).all(...params) as AppSummaryRow[]
    return rows.map(toAppSummary)
  }

  async get(accountId: number, id: string): Promise<AppRecord | null> {
    const row = this.db.prepare('SELECT * FROM apps WHERE account_id = ? AND id = ?').get(accountId, id) as AppRow | undefined
    return row ? toAppRecord(row) : null
  }

  async getById(id: string): Promise<AppRecord | null> {
    const row = this.db.prepare('SELECT * FROM apps WHERE id = ?').get(id) as AppRow | undefined
    return row ? toAppRecord(row) : null
  }

  async findByUrlCode(urlCode: string): Promise<AppRecord[]> {
    return (this.db.prepare('SELECT * FROM apps WHERE url_code = ? ORDER BY created_at, id').all(urlCode) as AppRow[]).map(toAppRecord)
  }

  async urlCodeTaken(accountId: number, urlCode: string, exceptId?: string): Promise<boolean> {
    void accountId // url_codes are unique server-wide: an app's host and `/a/:url_code` name no account
    return !!this.db.prepare('SELECT 1 FROM apps WHERE url_code = ? AND id != ?').get(urlCode, exceptId ?? '')
  }

  async create(accountId: number, userId: number, input: AppData, build: AppBuild): Promise<AppRecord> {
    const id = randomUUID()
    const at = nowWithOffset()
    try {
      writeTx(this.db, () => {
        if (this.db.prepare('SELECT 1 FROM apps WHERE url_code = ?').get(input.url_code)) {
          throw urlCodeTaken()
        }
        this.db.prepare(INSERT_APP).run(...insertAppParams(id, accountId, userId, input, build, at))
      })
    } catch (e) {
      if (isUniqueViolation(e)) throw urlCodeTaken()
      throw e
    }
    return (await this.get(accountId, id))!
  }

  async update(accountId: number, id: string, userId: number, input: AppData, build: AppBuild): Promise<AppRecord> {
    try {
      writeTx(this.db, () => {
        if (!this.db.prepare('SELECT 1 FROM apps WHERE account_id = ? AND id = ?').get(accountId, id)) throw notFound()
        if (this.db.prepare('SELECT 1 FROM apps WHERE url_code = ? AND id != ?').get(input.url_code, id)) {
          throw urlCodeTaken()
        }
        this.db.prepare(UPDATE_APP).run(...updateAppParams(accountId, id, userId, input, build, nowWithOffset()))
      })
    } catch (e) {
      if (isUniqueViolation(e)) throw urlCodeTaken()
      throw e
    }
    return (await this.get(accountId, id))!
  }

  async delete(accountId: number, id: string): Promise<boolean> {
    return writeTx(this.db, () => this.db.prepare('DELETE FROM apps WHERE account_id = ? AND id = ?').run(accountId, id).changes > 0)
  }

  async listAssets(appId: string): Promise<AppAsset[]> {
    return this.db.prepare(`SELECT ${ASSET_COLUMNS} FROM app_assets WHERE app_id = ? ORDER BY path`).all(appId) as AppAsset[]
  }

  async getAsset(appId: string, path: string): Promise<(AppAsset & {data: Buffer}) | null> {
    const row = this.db.prepare(`SELECT ${ASSET_COLUMNS}, data FROM app_assets WHERE app_id = ? AND path = ?`).get(appId, path) as
      (AppAsset & {data: string}) | undefined
    return row ? {...row, data: Buffer.from(row.data, 'base64')} : null
  }

  async putAsset(appId: string, asset: AppAsset & {data: Buffer}, limits: {maxTotal: number; maxCount: number}): Promise<boolean> {
    return writeTx(this.db, () => {
      const others = this.db.prepare('SELECT COALESCE(SUM(size), 0) AS total, COUNT(*) AS n FROM app_assets WHERE app_id = ? AND path != ?')
        .get(appId, asset.path) as {total: number; n: number}
      if (others.total + asset.size > limits.maxTotal || others.n + 1 > limits.maxCount) return false
      this.db.prepare(`INSERT INTO app_assets (app_id, path, content_type, size, sha256, data, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (app_id, path) DO UPDATE SET content_type = excluded.content_type, size = excluded.size, sha256 = excluded.sha256,
        data = excluded.data, updated_at = excluded.updated_at`)
        .run(appId, asset.path, asset.content_type, asset.size, asset.sha256, asset.data.toString('base64'), asset.updated_at)
      return true
    })
  }

  async deleteAsset(appId: string, path: string): Promise<boolean> {
    return writeTx(this.db, () => this.db.prepare('DELETE FROM app_assets WHERE app_id = ? AND path = ?').run(appId, path).changes > 0)
  }

  async cachedBuild(hash: string): Promise<AppBuild | null> {
    const row = this.db.prepare('SELECT hash, app_code, css_code, app_build_time, css_build_time FROM app_builds WHERE hash = ?').get(hash) as
      | AppBuild
      | undefined
    return row ?? null
  }

  async saveBuild(build: AppBuild): Promise<void> {
    writeTx(this.db, () =>
      this.db.prepare(
        `INSERT INTO app_builds (hash, app_code, css_code, app_build_time, css_build_time, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (hash) DO NOTHING`,
      ).run(build.hash, build.app_code, build.css_code, build.app_build_time, build.css_build_time, nowWithOffset()),
    )
  }
}
