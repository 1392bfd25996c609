import {randomBytes, randomUUID} from 'node:crypto'
import {notFound, validation} from '../../core/errors.js'
import {type Sqlite, writeTx} from './connection.js'
import type {AppActionTarget, AppBuild, AppData, AppListQuery, AppRecord, AppsRepo} from '../apps/types.js'

interface AppRow {
  id: string; account_id: number; name: string; url_code: string; description: string; app_engine: string
  css_engine: string; source_code: string; public: number; active: number; db_code: string | null
  show_in_module: string | null; prompt: string | null; actions: string; fields: string; config: string
  app_code: string; css_code: string; build_hash: string; app_build_time: number; css_build_time: number
  token: string; created_by_id: number; updated_by_id: number | null; created_at: string; updated_at: string
}

/** ISO 8601 with an explicit offset (`+00:00`), as the spec words it. */
const now = () => new Date().toISOString().replace('Z', '+00:00')

function toRecord(row: AppRow): AppRecord {
  return {
    ...row,
    public: row.public === 1,
    active: row.active === 1,
    actions: JSON.parse(row.actions),
    fields: JSON.parse(row.fields),
    config: JSON.parse(row.config),
  }
}

const isUniqueViolation = (e: unknown) => (e as {code?: string}).code === 'SQLITE_CONSTRAINT_UNIQUE'

export class SqliteAppsRepo implements AppsRepo {
  constructor(private readonly db: Sqlite) {}

  async actionTarget(appId: string): Promise<AppActionTarget | null> {
    const row = this.db.prepare('SELECT id, account_id, active, public, actions FROM apps WHERE id = ?').get(appId) as
      | {id: string; account_id: number; active: number; public: number; actions: string}
      | undefined
    if (!row) return null
    return {id: row.id, account_id: row.account_id, active: !!row.active, public: !!row.public, actions: JSON.parse(row.actions)}
  }

  async list(accountId: number, query: AppListQuery = {}): Promise<AppRecord[]> {
    const where = ['account_id = ?']
    const params: unknown[] = [accountId]
    if (query.q) {
      where.push("(name LIKE ? ESCAPE '\\' OR url_code LIKE ? ESCAPE '\\')")
      const like = `%${query.q.replace(/[\\%_]/g, (m) => '\\' + m)}%`
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
    const rows = this.db.prepare(`SELECT * FROM apps WHERE ${where.join(' AND ')} ORDER BY created_at, id`).all(...params) as AppRow[]
    return rows.map(toRecord)
  }

  async get(accountId: number, id: string): Promise<AppRecord | null> {
    const row = this.db.prepare('SELECT * FROM apps WHERE account_id = ? AND id = ?').get(accountId, id) as AppRow | undefined
    return row ? toRecord(row) : null
  }

  async getById(id: string): Promise<AppRecord | null> {
    const row = this.db.prepare('SELECT * FROM apps WHERE id = ?').get(id) as AppRow | undefined
    return row ? toRecord(row) : null
  }

  async findByUrlCode(urlCode: string): Promise<AppRecord[]> {
    return (this.db.prepare('SELECT * FROM apps WHERE url_code = ? ORDER BY created_at, id').all(urlCode) as AppRow[]).map(toRecord)
  }

  async urlCodeTaken(accountId: number, urlCode: string, exceptId?: string): Promise<boolean> {
    void accountId // url_codes are unique server-wide: an app's host and `/a/:url_code` name no account
    return !!this.db.prepare('SELECT 1 FROM apps WHERE url_code = ? AND id != ?').get(urlCode, exceptId ?? '')
  }

  async create(accountId: number, userId: number, input: AppData, build: AppBuild): Promise<AppRecord> {
    const id = randomUUID()
    const at = now()
    try {
      writeTx(this.db, () => {
        if (this.db.prepare('SELECT 1 FROM apps WHERE url_code = ?').get(input.url_code)) {
          throw validation({url_code: ['has already been taken']})
        }
        this.db.prepare(
          `INSERT INTO apps (id, account_id, name, url_code, description, app_engine, css_engine, source_code, public, active,
             db_code, show_in_module, prompt, actions, fields, config, app_code, css_code, build_hash, app_build_time,
             css_build_time, token, created_by_id, updated_by_id, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
        ).run(
          id, accountId, input.name, input.url_code, input.description, input.app_engine, input.css_engine, input.source_code,
          input.public ? 1 : 0, input.active ? 1 : 0, input.db_code, input.show_in_module, input.prompt,
          JSON.stringify(input.actions), JSON.stringify(input.fields), JSON.stringify(input.config),
          build.app_code, build.css_code, build.hash, build.app_build_time, build.css_build_time,
          randomBytes(24).toString('base64url'), userId, at, at,
        )
      })
    } catch (e) {
      if (isUniqueViolation(e)) throw validation({url_code: ['has already been taken']})
      throw e
    }
    return (await this.get(accountId, id))!
  }

  async update(accountId: number, id: string, userId: number, input: AppData, build: AppBuild): Promise<AppRecord> {
    try {
      writeTx(this.db, () => {
        if (!this.db.prepare('SELECT 1 FROM apps WHERE account_id = ? AND id = ?').get(accountId, id)) throw notFound()
        if (this.db.prepare('SELECT 1 FROM apps WHERE url_code = ? AND id != ?').get(input.url_code, id)) {
          throw validation({url_code: ['has already been taken']})
        }
        this.db.prepare(
          `UPDATE apps SET name = ?, url_code = ?, description = ?, app_engine = ?, css_engine = ?, source_code = ?, public = ?,
             active = ?, db_code = ?, show_in_module = ?, prompt = ?, actions = ?, fields = ?, config = ?, app_code = ?,
             css_code = ?, build_hash = ?, app_build_time = ?, css_build_time = ?, updated_by_id = ?, updated_at = ?
           WHERE account_id = ? AND id = ?`,
        ).run(
          input.name, input.url_code, input.description, input.app_engine, input.css_engine, input.source_code,
          input.public ? 1 : 0, input.active ? 1 : 0, input.db_code, input.show_in_module, input.prompt,
          JSON.stringify(input.actions), JSON.stringify(input.fields), JSON.stringify(input.config),
          build.app_code, build.css_code, build.hash, build.app_build_time, build.css_build_time, userId, now(),
          accountId, id,
        )
      })
    } catch (e) {
      if (isUniqueViolation(e)) throw validation({url_code: ['has already been taken']})
      throw e
    }
    return (await this.get(accountId, id))!
  }

  async delete(accountId: number, id: string): Promise<boolean> {
    return writeTx(this.db, () => this.db.prepare('DELETE FROM apps WHERE account_id = ? AND id = ?').run(accountId, id).changes > 0)
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
      ).run(build.hash, build.app_code, build.css_code, build.app_build_time, build.css_build_time, now()),
    )
  }
}
