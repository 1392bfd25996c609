/** The prompts area's repository, written once over the SQL port. */
import {appendEntry, JournalContext} from '../journal/writer.js'
import {likeEscape} from '../like-escape.js'
import {deleteChecked, type Dialect, type SqlPort, type TxBody, type TxSql, txUnique} from '../sql/port.js'
import {
  codeTaken, INSERT_PROMPT, insertPromptParams, PROMPT_COLUMNS, type PromptRow, toPromptRecord, UPDATE_PROMPT, updatePromptParams,
} from './rows.js'
import type {ListFilters, PromptData, PromptRecord, PromptsRepo, Viewer} from './types.js'

const now = () => new Date().toISOString()

/** Rows the viewer can see: binds account, user, teams, departments (`visibleArgs`). */
const visibleSql = (d: Dialect) => `account_id = ? AND (
  scope = 'account'
  OR (scope = 'user' AND scope_id = ?)
  OR (scope = 'team' AND ${d.inArray('scope_id', 'bigint')})
  OR (scope = 'department' AND ${d.inArray('scope_id', 'bigint')}))`

export class SqlPromptsRepo implements PromptsRepo {
  private readonly visible: string
  /** Order columns by their API name: the only identifiers spliced into SQL, picked from this map (`name` folds ASCII case). */
  private readonly orderSql: Record<ListFilters['orderBy'], string>

  constructor(private readonly sql: SqlPort, private readonly journal = new JournalContext()) {
    this.visible = visibleSql(sql.dialect)
    this.orderSql = {id: 'id', created_at: 'created_at', updated_at: 'updated_at', name: sql.dialect.orderCi('name'), code: 'code'}
  }

  private visibleArgs(v: Viewer): unknown[] {
    const {arrayParam} = this.sql.dialect
    return [v.accountId, v.userId, arrayParam(v.teamIds), arrayParam(v.departmentIds)]
  }

  async list(viewer: Viewer, filters: ListFilters): Promise<PromptRecord[]> {
    const where = [this.visible]
    const args: unknown[] = this.visibleArgs(viewer)
    if (filters.q) {
      const {likeCi} = this.sql.dialect
      where.push(`(${likeCi('name')} OR ${likeCi('code')})`)
      const pattern = `%${likeEscape(filters.q)}%`
      args.push(pattern, pattern)
    }
    if (filters.code !== undefined) (where.push('code = ?'), args.push(filters.code))
    if (filters.kind !== undefined) (where.push('kind = ?'), args.push(filters.kind))
    if (filters.scope !== undefined) (where.push('scope = ?'), args.push(filters.scope))
    const dir = filters.desc ? 'DESC' : 'ASC'
    const sql = `SELECT ${PROMPT_COLUMNS} FROM prompts WHERE ${where.join(' AND ')} ORDER BY ${this.orderSql[filters.orderBy]} ${dir}, id ${dir}`
    return (await this.sql.all<PromptRow>(sql, args)).map(toPromptRecord)
  }

  async get(viewer: Viewer, id: string): Promise<PromptRecord | null> {
    const row = await this.sql.get<PromptRow>(`SELECT ${PROMPT_COLUMNS} FROM prompts WHERE id = ? AND ${this.visible}`,
      [id, ...this.visibleArgs(viewer)])
    return row ? toPromptRecord(row) : null
  }

  async byCodes(viewer: Viewer, codes: string[]): Promise<PromptRecord[]> {
    const sql = `SELECT ${PROMPT_COLUMNS} FROM prompts WHERE ${this.sql.dialect.inArray('code', 'text')} AND ${this.visible} ORDER BY id`
    return (await this.sql.all<PromptRow>(sql, [this.sql.dialect.arrayParam(codes), ...this.visibleArgs(viewer)])).map(toPromptRecord)
  }

  /** The check gives the usual 422; the unique index (prompts_scope_code) decides a race between instances. */
  private write<T>(body: (q: TxSql) => TxBody<T>): Promise<T> {
    return txUnique(this.sql, body, codeTaken)
  }

  async create(accountId: number, createdById: number, data: PromptData): Promise<PromptRecord> {
    const who = this.journal.current()
    const row = await this.write(function* (q) {
      if (yield* clash(q, accountId, data, null)) throw codeTaken()
      const created = (yield* q.get<PromptRow>(INSERT_PROMPT, insertPromptParams(accountId, createdById, data, now())))!
      yield* appendEntry(q, who, {accountId, kind: 'prompt', id: created.id, op: 'create', row: {...created}})
      return created
    })
    return toPromptRecord(row!)
  }

  async update(accountId: number, id: string, data: PromptData, check?: (current: PromptRecord) => void): Promise<PromptRecord | null> {
    const {forUpdate} = this.sql.dialect
    const who = this.journal.current()
    const row = await this.write(function* (q) {
      if (check) {
        // If-Match: the prompt is read and locked, checked, then changed in one transaction.
        const current = yield* q.get<PromptRow>(`SELECT ${PROMPT_COLUMNS} FROM prompts WHERE account_id = ? AND id = ?${forUpdate}`, [accountId, id])
        if (!current) return undefined
        check(toPromptRecord(current))
      }
      if (yield* clash(q, accountId, data, id)) throw codeTaken()
      const updated = yield* q.get<PromptRow>(UPDATE_PROMPT, updatePromptParams(accountId, id, data, now()))
      if (updated) yield* appendEntry(q, who, {accountId, kind: 'prompt', id, op: 'update', row: {...updated}})
      return updated
    })
    return row ? toPromptRecord(row) : null
  }

  async delete(accountId: number, id: string, check?: (current: PromptRecord) => void): Promise<boolean> {
    const who = this.journal.current()
    return deleteChecked(this.sql, 'prompts', PROMPT_COLUMNS, accountId, id, toPromptRecord, check,
      (q, row) => appendEntry(q, who, {accountId, kind: 'prompt', id, op: 'delete', row, gone: true}))
  }
}

/** Whether another prompt of the same scope has the code. */
function* clash(q: TxSql, accountId: number, data: PromptData, exceptId: string | null): TxBody<boolean> {
  return Boolean(yield* q.get(
    'SELECT 1 FROM prompts WHERE account_id = ? AND scope = ? AND coalesce(scope_id, 0) = ? AND code = ? AND id IS DISTINCT FROM ?',
    [accountId, data.scope, data.scopeId ?? 0, data.code, exceptId],
  ))
}
