/** The apps area's repository (apps and their cached builds), written once over the SQL port. */
import {randomUUID} from 'node:crypto'
import {notFound} from '../../core/errors.js'
import {appendEntry, appendRow, JournalContext} from '../journal/writer.js'
import {likeEscape} from '../like-escape.js'
import {deleteChecked, type SqlPort, type TxBody, type TxSql, txUnique} from '../sql/port.js'
import {
  ACTION_TARGET_BY_ID, type ActionTargetRow, type AppRow, type AppSummaryRow, INSERT_APP, insertAppParams, LIST_COLUMNS, nowWithOffset,
  toActionTarget, toAppRecord, toAppSummary, UPDATE_APP, updateAppParams, urlCodeTaken,
} from './rows.js'
import type {AppActionTarget, AppAsset, AppBuild, AppData, AppListQuery, AppRecord, AppsRepo, AppSummary} from './types.js'

const ASSET_COLUMNS = 'path, content_type, size, sha256, updated_at'

export class SqlAppsRepo implements AppsRepo {
  constructor(private readonly sql: SqlPort, private readonly journal = new JournalContext()) {}

  async actionTarget(appId: string): Promise<AppActionTarget | null> {
    const row = await this.sql.get<ActionTargetRow>(ACTION_TARGET_BY_ID, [appId])
    return row ? toActionTarget(row) : null
  }

  async list(accountId: number, query: AppListQuery = {}): Promise<AppSummary[]> {
    const where = ['account_id = ?']
    const params: unknown[] = [accountId]
    if (query.q) {
      const {likeCi} = this.sql.dialect
      where.push(`(${likeCi('name')} OR ${likeCi('url_code')})`)
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
    const rows = await this.sql.all<AppSummaryRow>(`SELECT ${LIST_COLUMNS} FROM apps WHERE ${where.join(' AND ')} ORDER BY created_at, id`, params)
    return rows.map(toAppSummary)
  }

  async get(accountId: number, id: string): Promise<AppRecord | null> {
    const row = await this.sql.get<AppRow>('SELECT * FROM apps WHERE account_id = ? AND id = ?', [accountId, id])
    return row ? toAppRecord(row) : null
  }

  async getById(id: string): Promise<AppRecord | null> {
    const row = await this.sql.get<AppRow>('SELECT * FROM apps WHERE id = ?', [id])
    return row ? toAppRecord(row) : null
  }

  async findByUrlCode(urlCode: string): Promise<AppRecord[]> {
    return (await this.sql.all<AppRow>('SELECT * FROM apps WHERE url_code = ? ORDER BY created_at, id', [urlCode])).map(toAppRecord)
  }

  async urlCodeTaken(accountId: number, urlCode: string, exceptId?: string): Promise<boolean> {
    void accountId // url_codes are unique server-wide: an app's host and `/a/:url_code` name no account
    return !!(await this.sql.get('SELECT 1 FROM apps WHERE url_code = ? AND id != ?', [urlCode, exceptId ?? '']))
  }

  /**
   * url_codes are unique server-wide (checked in the transaction, under a lock on the code so that
   * two instances creating the same url_code in two accounts at once see each other's row); the
   * unique (account_id, url_code) index decides between concurrent writes in one account.
   */
  private write(body: (q: TxSql) => TxBody<void>): Promise<void> {
    return txUnique(this.sql, body, urlCodeTaken)
  }

  async create(accountId: number, userId: number, input: AppData, build: AppBuild): Promise<AppRecord> {
    const id = randomUUID()
    const at = nowWithOffset()
    const who = this.journal.current()
    await this.write(function* (q) {
      yield* q.lock(`app_url_code:${input.url_code}`)
      if (yield* q.get('SELECT 1 FROM apps WHERE url_code = ?', [input.url_code])) throw urlCodeTaken()
      yield* q.run(INSERT_APP, insertAppParams(id, accountId, userId, input, build, at))
      yield* appendRow(q, who, {accountId, kind: 'app', id, op: 'create'})
    })
    return (await this.get(accountId, id))!
  }

  async update(accountId: number, id: string, userId: number, input: AppData, build: AppBuild, check?: (current: AppRecord) => void): Promise<AppRecord> {
    const {forUpdate} = this.sql.dialect
    const who = this.journal.current()
    await this.write(function* (q) {
      yield* q.lock(`app_url_code:${input.url_code}`)
      // Locked: an If-Match check sees the version this write replaces.
      const current = yield* q.get<AppRow>(`SELECT * FROM apps WHERE account_id = ? AND id = ?${forUpdate}`, [accountId, id])
      if (!current) throw notFound()
      check?.(toAppRecord(current))
      if (yield* q.get('SELECT 1 FROM apps WHERE url_code = ? AND id != ?', [input.url_code, id])) throw urlCodeTaken()
      yield* q.run(UPDATE_APP, updateAppParams(accountId, id, userId, input, build, nowWithOffset()))
      yield* appendRow(q, who, {accountId, kind: 'app', id, op: 'update', detail: current.source_code === input.source_code ? undefined : 'source replaced'})
    })
    return (await this.get(accountId, id))!
  }

  async delete(accountId: number, id: string, check?: (current: AppRecord) => void): Promise<boolean> {
    const who = this.journal.current()
    return deleteChecked(this.sql, 'apps', '*', accountId, id, toAppRecord, check,
      (q, row) => appendEntry(q, who, {accountId, kind: 'app', id, op: 'delete', row, gone: true}))
  }

  async listAssets(appId: string): Promise<AppAsset[]> {
    const rows = await this.sql.all<AppAsset>(`SELECT ${ASSET_COLUMNS} FROM app_assets WHERE app_id = ? ORDER BY path`, [appId])
    return rows.map((r) => ({...r, size: Number(r.size)}))
  }

  async getAsset(appId: string, path: string): Promise<(AppAsset & {data: Buffer}) | null> {
    const row = await this.sql.get<AppAsset & {data: string}>(`SELECT ${ASSET_COLUMNS}, data FROM app_assets WHERE app_id = ? AND path = ?`, [appId, path])
    return row ? {...row, size: Number(row.size), data: Buffer.from(row.data, 'base64')} : null
  }

  async putAsset(appId: string, asset: AppAsset & {data: Buffer}, limits: {maxTotal: number; maxCount: number}): Promise<boolean> {
    const {forUpdate} = this.sql.dialect
    return this.sql.tx(function* (q) {
      // One writer per app at a time: the sum below stays true until the insert.
      yield* q.get(`SELECT id FROM apps WHERE id = ?${forUpdate}`, [appId])
      const others = (yield* q.get<{total: string | number; n: string | number}>(
        'SELECT COALESCE(SUM(size), 0) AS total, COUNT(*) AS n FROM app_assets WHERE app_id = ? AND path != ?', [appId, asset.path]))!
      if (Number(others.total) + asset.size > limits.maxTotal || Number(others.n) + 1 > limits.maxCount) return false
      yield* q.run(`INSERT INTO app_assets (app_id, path, content_type, size, sha256, data, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (app_id, path) DO UPDATE SET content_type = excluded.content_type, size = excluded.size, sha256 = excluded.sha256,
        data = excluded.data, updated_at = excluded.updated_at`,
      [appId, asset.path, asset.content_type, asset.size, asset.sha256, asset.data.toString('base64'), asset.updated_at])
      return true
    })
  }

  async deleteAsset(appId: string, path: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM app_assets WHERE app_id = ? AND path = ?', [appId, path])) > 0
  }

  async cachedBuild(hash: string): Promise<AppBuild | null> {
    const row = await this.sql.get<AppBuild>('SELECT hash, app_code, css_code, app_build_time, css_build_time FROM app_builds WHERE hash = ?', [hash])
    return row ?? null
  }

  async saveBuild(build: AppBuild): Promise<void> {
    await this.sql.run(
      `INSERT INTO app_builds (hash, app_code, css_code, app_build_time, css_build_time, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (hash) DO NOTHING`,
      [build.hash, build.app_code, build.css_code, build.app_build_time, build.css_build_time, nowWithOffset()])
  }
}
