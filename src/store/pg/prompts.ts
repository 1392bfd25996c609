import {
  codeTaken, INSERT_PROMPT, insertPromptParams, PROMPT_COLUMNS, type PromptRow, toPromptRecord, UPDATE_PROMPT, updatePromptParams,
} from '../prompts/rows.js'
import type {ListFilters, PromptData, PromptRecord, PromptsRepo, Viewer} from '../prompts/types.js'
import {isUniqueViolation, type PgDb, type Q} from './connection.js'
import {likeEscape} from '../like-escape.js'

/** Order columns by their API name; `name` folds ASCII case like SQLite's NOCASE. */
const ORDER_SQL: Record<ListFilters['orderBy'], string> = {
  id: 'id', created_at: 'created_at', updated_at: 'updated_at', name: 'svc_fold(name)', code: 'code',
}

/** Rows the viewer can see: binds account, user, teams (array), departments (array). */
const VISIBLE = `account_id = ? AND (
  scope = 'account'
  OR (scope = 'user' AND scope_id = ?)
  OR (scope = 'team' AND scope_id = ANY(?::bigint[]))
  OR (scope = 'department' AND scope_id = ANY(?::bigint[])))`
const visibleArgs = (v: Viewer) => [v.accountId, v.userId, v.teamIds, v.departmentIds]

const now = () => new Date().toISOString()

export class PgPromptsRepo implements PromptsRepo {
  constructor(private readonly db: PgDb) {}

  async list(viewer: Viewer, filters: ListFilters): Promise<PromptRecord[]> {
    const where = [VISIBLE]
    const args: unknown[] = visibleArgs(viewer)
    if (filters.q) {
      // SQLite's LIKE: ASCII letters match either case, nothing else does.
      where.push(`(svc_fold(name) LIKE svc_fold(?) ESCAPE '\\' OR svc_fold(code) LIKE svc_fold(?) ESCAPE '\\')`)
      const pattern = `%${likeEscape(filters.q)}%`
      args.push(pattern, pattern)
    }
    if (filters.code !== undefined) (where.push('code = ?'), args.push(filters.code))
    if (filters.kind !== undefined) (where.push('kind = ?'), args.push(filters.kind))
    if (filters.scope !== undefined) (where.push('scope = ?'), args.push(filters.scope))
    const dir = filters.desc ? 'DESC' : 'ASC'
    const sql = `SELECT ${PROMPT_COLUMNS} FROM prompts WHERE ${where.join(' AND ')} ORDER BY ${ORDER_SQL[filters.orderBy]} ${dir}, id ${dir}`
    return (await this.db.all<PromptRow>(sql, args)).map(toPromptRecord)
  }

  async get(viewer: Viewer, id: string): Promise<PromptRecord | null> {
    const row = await this.db.get<PromptRow>(`SELECT ${PROMPT_COLUMNS} FROM prompts WHERE id = ? AND ${VISIBLE}`, [id, ...visibleArgs(viewer)])
    return row ? toPromptRecord(row) : null
  }

  async byCodes(viewer: Viewer, codes: string[]): Promise<PromptRecord[]> {
    const sql = `SELECT ${PROMPT_COLUMNS} FROM prompts WHERE code = ANY(?::text[]) AND ${VISIBLE} ORDER BY id`
    return (await this.db.all<PromptRow>(sql, [codes, ...visibleArgs(viewer)])).map(toPromptRecord)
  }

  private async clash(q: Q, accountId: number, data: PromptData, exceptId: string | null): Promise<boolean> {
    return Boolean(await q.get(
      'SELECT 1 FROM prompts WHERE account_id = ? AND scope = ? AND coalesce(scope_id, 0) = ? AND code = ? AND id IS DISTINCT FROM ?',
      [accountId, data.scope, data.scopeId ?? 0, data.code, exceptId],
    ))
  }

  /** The check gives the usual 422; the unique index (prompts_scope_code) decides a race between instances. */
  private async write<T>(fn: (q: Q) => Promise<T>): Promise<T> {
    try {
      return await this.db.tx(fn)
    } catch (e) {
      if (isUniqueViolation(e)) throw codeTaken()
      throw e
    }
  }

  async create(accountId: number, createdById: number, data: PromptData): Promise<PromptRecord> {
    const row = await this.write(async (q) => {
      if (await this.clash(q, accountId, data, null)) throw codeTaken()
      const at = now()
      return q.get<PromptRow>(INSERT_PROMPT, insertPromptParams(accountId, createdById, data, at))
    })
    return toPromptRecord(row!)
  }

  async update(accountId: number, id: string, data: PromptData): Promise<PromptRecord | null> {
    const row = await this.write(async (q) => {
      if (await this.clash(q, accountId, data, id)) throw codeTaken()
      return q.get<PromptRow>(UPDATE_PROMPT, updatePromptParams(accountId, id, data, now()))
    })
    return row ? toPromptRecord(row) : null
  }

  async delete(accountId: number, id: string): Promise<boolean> {
    return (await this.db.tx((q) => q.run('DELETE FROM prompts WHERE account_id = ? AND id = ?', [accountId, id]))) > 0
  }
}
