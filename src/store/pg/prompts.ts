import {randomBytes} from 'node:crypto'
import {validation} from '../../core/errors.js'
import type {Kind, Scope} from '../../core/prompts/types.js'
import {uuidv7} from '../../core/prompts/uuid.js'
import type {ListFilters, PromptData, PromptRecord, PromptsRepo, Viewer} from '../prompts/types.js'
import {isUniqueViolation, type PgDb, type Q} from './connection.js'
import {likeEscape} from '../like-escape.js'

interface Row {
  id: string; account_id: number; name: string; code: string; content: string; kind: string; scope: string
  scope_id: number | null; fields: string; created_by_id: number | null; created_at: string; updated_at: string
}

/** Every column but `token`: the token never leaves the store. */
const COLUMNS = 'id, account_id, name, code, content, kind, scope, scope_id, fields, created_by_id, created_at, updated_at'

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

function toRecord(row: Row): PromptRecord {
  let fields: PromptRecord['fields'] = {}
  try {
    const parsed = JSON.parse(row.fields) as unknown
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) fields = parsed as PromptRecord['fields']
  } catch {
    fields = {}
  }
  return {
    id: row.id, accountId: row.account_id, name: row.name, code: row.code, content: row.content,
    kind: row.kind as Kind, scope: row.scope as Scope, scopeId: row.scope_id, fields,
    createdById: row.created_by_id, createdAt: row.created_at, updatedAt: row.updated_at,
  }
}

const taken = () => validation({code: ['has already been taken']})

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
    const sql = `SELECT ${COLUMNS} FROM prompts WHERE ${where.join(' AND ')} ORDER BY ${ORDER_SQL[filters.orderBy]} ${dir}, id ${dir}`
    return (await this.db.all<Row>(sql, args)).map(toRecord)
  }

  async get(viewer: Viewer, id: string): Promise<PromptRecord | null> {
    const row = await this.db.get<Row>(`SELECT ${COLUMNS} FROM prompts WHERE id = ? AND ${VISIBLE}`, [id, ...visibleArgs(viewer)])
    return row ? toRecord(row) : null
  }

  async byCodes(viewer: Viewer, codes: string[]): Promise<PromptRecord[]> {
    const sql = `SELECT ${COLUMNS} FROM prompts WHERE code = ANY(?::text[]) AND ${VISIBLE} ORDER BY id`
    return (await this.db.all<Row>(sql, [codes, ...visibleArgs(viewer)])).map(toRecord)
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
      if (isUniqueViolation(e)) throw taken()
      throw e
    }
  }

  async create(accountId: number, createdById: number, data: PromptData): Promise<PromptRecord> {
    const row = await this.write(async (q) => {
      if (await this.clash(q, accountId, data, null)) throw taken()
      const at = now()
      return q.get<Row>(
        `INSERT INTO prompts (id, account_id, name, code, content, kind, scope, scope_id, fields, token, created_by_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
        [uuidv7(), accountId, data.name, data.code, data.content, data.kind, data.scope, data.scopeId,
          JSON.stringify(data.fields), randomBytes(32).toString('base64url'), createdById, at, at],
      )
    })
    return toRecord(row!)
  }

  async update(accountId: number, id: string, data: PromptData): Promise<PromptRecord | null> {
    const row = await this.write(async (q) => {
      if (await this.clash(q, accountId, data, id)) throw taken()
      return q.get<Row>(
        `UPDATE prompts SET name = ?, code = ?, content = ?, kind = ?, scope = ?, scope_id = ?, fields = ?, updated_at = ?
         WHERE account_id = ? AND id = ? RETURNING ${COLUMNS}`,
        [data.name, data.code, data.content, data.kind, data.scope, data.scopeId, JSON.stringify(data.fields), now(), accountId, id],
      )
    })
    return row ? toRecord(row) : null
  }

  async delete(accountId: number, id: string): Promise<boolean> {
    return (await this.db.tx((q) => q.run('DELETE FROM prompts WHERE account_id = ? AND id = ?', [accountId, id]))) > 0
  }
}
