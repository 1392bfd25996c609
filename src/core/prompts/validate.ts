/** The rules of prompt writes that only code can say, and list queries. Pure, no I/O. */
import type {Principal} from '../auth/permissions.js'
import {FieldErrorBag} from '../errors.js'
import type {PromptCreate, PromptPatch} from '../contract/prompts.js'
import {PROMPT_CODE_RE, PROMPT_LIMITS, type Kind, type ListFilters, type OrderColumn, type PromptData, type PromptRecord, type Scope} from './types.js'

/** A prompt code: letters, digits, `_` and `-` (no dots: `:code.agent.md` must stay unambiguous). */
export const isPromptCode = (value: unknown): value is string =>
  typeof value === 'string' && value.length >= 1 && value.length <= PROMPT_LIMITS.code && PROMPT_CODE_RE.test(value)

/**
 * The prompt a create (no `existing`) or a PATCH (`existing`) asks for, from a body its route's
 * schema has checked (types, lengths, choices, Liquid: src/core/contract/prompts.ts), or a 422
 * with the messages of what only code can say: the scope against the user's own id, teams and
 * department.
 */
export function promptData(input: PromptCreate | PromptPatch, user: Principal, existing?: PromptRecord): PromptData {
  const errors = new FieldErrorBag()
  const name = input.name ?? existing!.name
  const code = input.code ?? existing!.code
  const content = input.content ?? existing!.content
  const kind: Kind = input.kind ?? existing?.kind ?? 'chat'
  const scope: Scope = input.scope ?? existing?.scope ?? 'account'

  // scope_id: kept on PATCH unless sent or the scope changed.
  let scopeId: number | null
  if (input.scope_id !== undefined) scopeId = input.scope_id
  else if (existing && scope === existing.scope) scopeId = existing.scopeId
  else scopeId = null
  if (scope === 'user' && scopeId === null) scopeId = user.id
  if (scope === 'account' && scopeId !== null) errors.add('scope_id', 'must be empty for scope account')
  if (scope === 'user' && scopeId !== user.id) errors.add('scope_id', 'must be your own user id for scope user')
  if (scope === 'team') {
    if (scopeId === null) errors.add('scope_id', "can't be blank for scope team")
    else if (!user.teamIds.includes(scopeId)) errors.add('scope_id', 'is not one of your teams')
  }
  if (scope === 'department') {
    if (scopeId === null) errors.add('scope_id', "can't be blank for scope department")
    else if (!user.departmentIds.includes(scopeId)) errors.add('scope_id', 'is not your department')
  }

  const fields: PromptData['fields'] = {...(existing?.fields ?? {})}
  if (input.ai_placeholder === null || input.ai_placeholder === '') delete fields.ai_placeholder
  else if (input.ai_placeholder !== undefined) fields.ai_placeholder = input.ai_placeholder
  if (input.arguments === null) delete fields.arguments
  else if (input.arguments !== undefined) fields.arguments = input.arguments

  errors.throwIfAny()
  return {name, code, content, kind, scope, scopeId, fields}
}

/** The validated query of `GET /svc/prompts.json` (PromptListQuery checks the values) → filters. */
export function listFilters(query: {q?: string; code?: string; kind?: Kind; scope?: Scope; order_by?: string}): ListFilters {
  const filters: ListFilters = {orderBy: 'created_at', desc: false}
  const q = query.q?.trim()
  if (q) filters.q = q.slice(0, 200)
  if (query.code) filters.code = query.code
  if (query.kind) filters.kind = query.kind
  if (query.scope) filters.scope = query.scope
  if (query.order_by) {
    const desc = query.order_by.endsWith('_desc')
    filters.orderBy = (desc ? query.order_by.slice(0, -5) : query.order_by) as OrderColumn
    filters.desc = desc
  }
  return filters
}

/** May this user change or delete a prompt they can see? Its creator may; otherwise only an admin. */
export const mayChange = (user: Principal, record: PromptRecord): boolean =>
  record.createdById === user.id || user.role === 'admin'
