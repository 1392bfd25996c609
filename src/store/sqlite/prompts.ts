import {type Sqlite, writeTx} from './connection.js'
import {likeEscape} from '../like-escape.js'
import {
  codeTaken, INSERT_PROMPT, insertPromptParams, PROMPT_COLUMNS, type PromptRow, toPromptRecord, UPDATE_PROMPT, updatePromptParams,
} from '../prompts/rows.js'
import type {ListFilters, PromptData, PromptRecord, PromptsRepo, Viewer} from '../prompts/types.js'

/** Order columns by their API name; the only identifiers spliced into SQL, picked from this map. */
const ORDER_SQL: Record<ListFilters['orderBy'], string> = {
  id: 'id', created_at: 'created_at', updated_at: 'updated_at', name: 'name COLLATE NOCASE', code: 'code',
}

/** Rows the viewer can see: binds account, user, teams (JSON array), departments (JSON array). */
const VISIBLE = `account_id = ? AND (
  scope = 'account'
  OR (scope = 'user' AND scope_id = ?)
  OR (scope = 'team' AND scope_id IN (SELECT value FROM json_each(?)))
  OR (scope = 'department' AND scope_id IN (SELECT value FROM json_each(?))))`
const visibleArgs = (v: Viewer) => [v.accountId, v.userId, JSON.stringify(v.teamIds), JSON.stringify(v.departmentIds)]

const now = () => new Date().toISOString()

export class SqlitePromptsRepo implements PromptsRepo {
  constructor(private readonly db: Sqlite) {}

  async list(viewer: Viewer, filters: ListFilters): Promise<PromptRecord[]> {
    const where = [VISIBLE]
    const args: unknown[] = visibleArgs(viewer)
    if (filters.q) {
      where.push(`(name LIKE ? ESCAPE '\\' OR code LIKE ? ESCAPE '\\')`)
      const pattern = `%${likeEscape(filters.q)}%`
      args.push(pattern, pattern)
    }
    if (filters.code !== undefined) (where.push('code = ?'), args.push(filters.code))
    if (filters.kind !== undefined) (where.push('kind = ?'), args.push(filters.kind))
    if (filters.scope !== undefined) (where.push('scope = ?'), args.push(filters.scope))
    const dir = filters.desc ? 'DESC' : 'ASC'
    const sql = `SELECT ${PROMPT_COLUMNS} FROM prompts WHERE ${where.join(' AND ')} ORDER BY ${ORDER_SQL[filters.orderBy]} ${dir}, id ${dir}`
    return (this.db.prepare(sql).all(...args) as PromptRow[]).map(toPromptRecord)
  }

  async get(viewer: Viewer, id: string): Promise<PromptRecord | null> {
    const row = this.db.prepare(`SELECT ${PROMPT_COLUMNS} FROM prompts WHERE id = ? AND ${VISIBLE}`).get(id, ...visibleArgs(viewer)) as PromptRow | undefined
    return row ? toPromptRecord(row) : null
  }

  async byCodes(viewer: Viewer, codes: string[]): Promise<PromptRecord[]> {
    const sql = `SELECT ${PROMPT_COLUMNS} FROM prompts WHERE code IN (SELECT value FROM json_each(?)) AND ${VISIBLE} ORDER BY id`
    return (this.db.prepare(sql).all(JSON.stringify(codes), ...visibleArgs(viewer)) as PromptRow[]).map(toPromptRecord)
  }

  private clash(accountId: number, data: PromptData, exceptId: string | null): boolean {
    return Boolean(this.db.prepare(
      'SELECT 1 FROM prompts WHERE account_id = ? AND scope = ? AND ifnull(scope_id, 0) = ? AND code = ? AND id IS NOT ?',
    ).get(accountId, data.scope, data.scopeId ?? 0, data.code, exceptId))
  }

  async create(accountId: number, createdById: number, data: PromptData): Promise<PromptRecord> {
    const row = writeTx(this.db, () => {
      if (this.clash(accountId, data, null)) throw codeTaken()
      const at = now()
      return this.db.prepare(INSERT_PROMPT).get(...insertPromptParams(accountId, createdById, data, at)) as PromptRow
    })
    return toPromptRecord(row)
  }

  async update(accountId: number, id: string, data: PromptData): Promise<PromptRecord | null> {
    const row = writeTx(this.db, () => {
      if (this.clash(accountId, data, id)) throw codeTaken()
      return this.db.prepare(UPDATE_PROMPT).get(...updatePromptParams(accountId, id, data, now())) as PromptRow | undefined
    })
    return row ? toPromptRecord(row) : null
  }

  async delete(accountId: number, id: string): Promise<boolean> {
    return writeTx(this.db, () => this.db.prepare('DELETE FROM prompts WHERE account_id = ? AND id = ?').run(accountId, id).changes > 0)
  }
}
