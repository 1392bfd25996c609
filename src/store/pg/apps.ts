import {randomBytes, randomUUID} from 'node:crypto'
import {notFound, validation} from '../../core/errors.js'
import type {AppActionTarget, AppBuild, AppData, AppListQuery, AppRecord, AppsRepo} from '../apps/types.js'
import {isUniqueViolation, likeEscape, type PgDb, type Q} from './connection.js'

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

const urlCodeTaken = () => validation({url_code: ['has already been taken']})

export class PgAppsRepo implements AppsRepo {
  constructor(private readonly db: PgDb) {}

  async actionTarget(appId: string): Promise<AppActionTarget | null> {
    const row = await this.db.get<{id: string; account_id: number; active: number; public: number; actions: string}>(
      'SELECT id, account_id, active, public, actions FROM apps WHERE id = ?', [appId])
    if (!row) return null
    return {id: row.id, account_id: row.account_id, active: !!row.active, public: !!row.public, actions: JSON.parse(row.actions)}
  }

  async list(accountId: number, query: AppListQuery = {}): Promise<AppRecord[]> {
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
    return (await this.db.all<AppRow>(`SELECT * FROM apps WHERE ${where.join(' AND ')} ORDER BY created_at, id`, params)).map(toRecord)
  }

  async get(accountId: number, id: string): Promise<AppRecord | null> {
    const row = await this.db.get<AppRow>('SELECT * FROM apps WHERE account_id = ? AND id = ?', [accountId, id])
    return row ? toRecord(row) : null
  }

  async getById(id: string): Promise<AppRecord | null> {
    const row = await this.db.get<AppRow>('SELECT * FROM apps WHERE id = ?', [id])
    return row ? toRecord(row) : null
  }

  async findByUrlCode(urlCode: string): Promise<AppRecord[]> {
    return (await this.db.all<AppRow>('SELECT * FROM apps WHERE url_code = ? ORDER BY created_at, id', [urlCode])).map(toRecord)
  }

  async urlCodeTaken(accountId: number, urlCode: string, exceptId?: string): Promise<boolean> {
    void accountId // url_codes are unique server-wide: an app's host and `/a/:url_code` name no account
    return !!(await this.db.get('SELECT 1 FROM apps WHERE url_code = ? AND id != ?', [urlCode, exceptId ?? '']))
  }

  async create(accountId: number, userId: number, input: AppData, build: AppBuild): Promise<AppRecord> {
    const id = randomUUID()
    const at = now()
    try {
      // url_codes are unique server-wide (checked here); the unique (account_id, url_code) index decides
      // between concurrent creates in one account.
      await this.db.tx(async (q) => {
        await lockUrlCode(q, input.url_code)
        if (await q.get('SELECT 1 FROM apps WHERE url_code = ?', [input.url_code])) throw urlCodeTaken()
        await q.run(
        `INSERT INTO apps (id, account_id, name, url_code, description, app_engine, css_engine, source_code, public, active,
           db_code, show_in_module, prompt, actions, fields, config, app_code, css_code, build_hash, app_build_time,
           css_build_time, token, created_by_id, updated_by_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
        [id, accountId, input.name, input.url_code, input.description, input.app_engine, input.css_engine, input.source_code,
          input.public ? 1 : 0, input.active ? 1 : 0, input.db_code, input.show_in_module, input.prompt,
          JSON.stringify(input.actions), JSON.stringify(input.fields), JSON.stringify(input.config),
          build.app_code, build.css_code, build.hash, build.app_build_time, build.css_build_time,
          randomBytes(24).toString('base64url'), userId, at, at],
      )
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
        return q.run(
        `UPDATE apps SET name = ?, url_code = ?, description = ?, app_engine = ?, css_engine = ?, source_code = ?, public = ?,
           active = ?, db_code = ?, show_in_module = ?, prompt = ?, actions = ?, fields = ?, config = ?, app_code = ?,
           css_code = ?, build_hash = ?, app_build_time = ?, css_build_time = ?, updated_by_id = ?, updated_at = ?
         WHERE account_id = ? AND id = ?`,
        [input.name, input.url_code, input.description, input.app_engine, input.css_engine, input.source_code,
          input.public ? 1 : 0, input.active ? 1 : 0, input.db_code, input.show_in_module, input.prompt,
          JSON.stringify(input.actions), JSON.stringify(input.fields), JSON.stringify(input.config),
          build.app_code, build.css_code, build.hash, build.app_build_time, build.css_build_time, userId, now(),
          accountId, id],
        )
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

  async cachedBuild(hash: string): Promise<AppBuild | null> {
    const row = await this.db.get<AppBuild>('SELECT hash, app_code, css_code, app_build_time, css_build_time FROM app_builds WHERE hash = ?', [hash])
    return row ?? null
  }

  async saveBuild(build: AppBuild): Promise<void> {
    await this.db.run(
      `INSERT INTO app_builds (hash, app_code, css_code, app_build_time, css_build_time, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (hash) DO NOTHING`,
      [build.hash, build.app_code, build.css_code, build.app_build_time, build.css_build_time, now()])
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
