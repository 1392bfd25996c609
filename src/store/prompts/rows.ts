/**
 * The prompt row as the repository (repo.ts) reads and writes it: the columns and these statements
 * are the same in SQLite and PostgreSQL (what differs, visibility and case folding, is the dialect's).
 */
import {randomBytes} from 'node:crypto'
import {validation} from '../../core/errors.js'
import type {Kind, Scope} from '../../core/prompts/types.js'
import {uuidv7} from '../../core/prompts/uuid.js'
import type {PromptData, PromptRecord} from './types.js'

export interface PromptRow {
  id: string; account_id: number; name: string; code: string; content: string; kind: string; scope: string
  scope_id: number | null; fields: string; created_by_id: number | null; created_at: string; updated_at: string
}

/** Every column but `token`: the token never leaves the store. */
export const PROMPT_COLUMNS = 'id, account_id, name, code, content, kind, scope, scope_id, fields, created_by_id, created_at, updated_at'

export const INSERT_PROMPT = `INSERT INTO prompts (id, account_id, name, code, content, kind, scope, scope_id, fields, token, created_by_id, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${PROMPT_COLUMNS}`
/** A new prompt's values for INSERT_PROMPT, with its id and token made here. */
export const insertPromptParams = (accountId: number, createdById: number, data: PromptData, at: string) => [
  uuidv7(), accountId, data.name, data.code, data.content, data.kind, data.scope, data.scopeId,
  JSON.stringify(data.fields), randomBytes(32).toString('base64url'), createdById, at, at,
]

export const UPDATE_PROMPT = `UPDATE prompts SET name = ?, code = ?, content = ?, kind = ?, scope = ?, scope_id = ?, fields = ?, updated_at = ?
  WHERE account_id = ? AND id = ? RETURNING ${PROMPT_COLUMNS}`
export const updatePromptParams = (accountId: number, id: string, data: PromptData, at: string) => [
  data.name, data.code, data.content, data.kind, data.scope, data.scopeId, JSON.stringify(data.fields), at, accountId, id,
]

export function toPromptRecord(row: PromptRow): PromptRecord {
  // Fields that are not a JSON object read as none, rather than failing every listing that holds the row.
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

/** A code already used by a prompt of the same scope. */
export const codeTaken = () => validation({code: ['has already been taken']})
