import {randomBytes} from 'node:crypto'
import {validation} from '../../core/errors.js'
import type {Kind, Scope} from '../../core/prompts/types.js'
import {uuidv7} from '../../core/prompts/uuid.js'
import {type Sqlite, writeTx} from './connection.js'
import {likeEscape} from '../like-escape.js'
import type {ListFilters, PromptData, PromptRecord, PromptsRepo, Viewer} from '../prompts/types.js'

interface Row {
  id: string; account_id: number; name: string; code: string; content: string; kind: string; scope: string
  scope_id: number | null; fields: string; created_by_id: number | null; created_at: string; updated_at: string
}

/** Every column but `token`: the token never leaves the store. */
const COLUMNS = 'id, account_id, name, code, content, kind, scope, scope_id, fields, created_by_id, created_at, updated_at'

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
    const sql = `SELECT ${COLUMNS} FROM prompts WHERE ${where.join(' AND ')} ORDER BY ${ORDER_SQL[filters.orderBy]} ${dir}, id ${dir}`
    return (this.db.prepare(sql).all(...args) as Row[]).map(toRecord)
  }

  async get(viewer: Viewer, id: string): Promise<PromptRecord | null> {
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM prompts WHERE id = ? AND ${VISIBLE}`).get(id, ...visibleArgs(viewer)) as Row | undefined
    return row ? toRecord(row) : null
  }

  async byCodes(viewer: Viewer, codes: string[]): Promise<PromptRecord[]> {
    const sql = `SELECT ${COLUMNS} FROM prompts WHERE code IN (SELECT value FROM json_each(?)) AND ${VISIBLE} ORDER BY id`
    return (this.db.prepare(sql).all(JSON.stringify(codes), ...visibleArgs(viewer)) as Row[]).map(toRecord)
  }

  private clash(accountId: number, data: PromptData, exceptId: string | null): boolean {
    return Boolean(this.db.prepare(
      'SELECT 1 FROM prompts WHERE account_id = ? AND scope = ? AND ifnull(scope_id, 0) = ? AND code = ? AND id IS NOT ?',
    ).get(accountId, data.scope, data.scopeId ?? 0, data.code, exceptId))
  }

  async create(accountId: number, createdById: number, data: PromptData): Promise<PromptRecord> {
    const row = writeTx(this.db, () => {
      if (this.clash(accountId, data, null)) throw taken()
      const at = now()
      return this.db.prepare(
        `INSERT INTO prompts (id, account_id, name, code, content, kind, scope, scope_id, fields, token, created_by_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
      ).get(
        uuidv7(), accountId, data.name, data.code, data.content, data.kind, data.scope, data.scopeId,
        JSON.stringify(data.fields), randomBytes(32).toString('base64url'), createdById, at, at,
      ) as Row
    })
    return toRecord(row)
  }

  async update(accountId: number, id: string, data: PromptData): Promise<PromptRecord | null> {
    const row = writeTx(this.db, () => {
      if (this.clash(accountId, data, id)) throw taken()
      return this.db.prepare(
        `UPDATE prompts SET name = ?, code = ?, content = ?, kind = ?, scope = ?, scope_id = ?, fields = ?, updated_at = ?
         WHERE account_id = ? AND id = ? RETURNING ${COLUMNS}`,
      ).get(data.name, data.code, data.content, data.kind, data.scope, data.scopeId, JSON.stringify(data.fields), now(), accountId, id) as
        | Row
        | undefined
    })
    return row ? toRecord(row) : null
  }

  async delete(accountId: number, id: string): Promise<boolean> {
    return writeTx(this.db, () => this.db.prepare('DELETE FROM prompts WHERE account_id = ? AND id = ?').run(accountId, id).changes > 0)
  }
}
