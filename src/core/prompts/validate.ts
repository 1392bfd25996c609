/** Validation of prompt writes and list queries. Pure rules, no I/O. */
import type {Principal} from '../auth/permissions.js'
import {FieldErrorBag} from '../errors.js'
import {KINDS, ORDER_COLUMNS, SCOPES, type Kind, type ListFilters, type OrderColumn, type PromptData, type PromptRecord, type Scope} from './types.js'

export const LIMITS = {name: 255, code: 100, content: 200_000, aiPlaceholder: 1000} as const

const CODE_RE = /^[A-Za-z0-9_-]+$/
/** A prompt code: letters, digits, `_` and `-` (no dots: `:code.agent.md` must stay unambiguous). */
export const isPromptCode = (value: unknown): value is string =>
  typeof value === 'string' && value.length >= 1 && value.length <= LIMITS.code && CODE_RE.test(value)

const isKind = (v: unknown): v is Kind => typeof v === 'string' && (KINDS as readonly string[]).includes(v)
const isScope = (v: unknown): v is Scope => typeof v === 'string' && (SCOPES as readonly string[]).includes(v)
const has = (o: Record<string, unknown>, k: string) => Object.prototype.hasOwnProperty.call(o, k) && o[k] !== undefined

function text(errors: FieldErrorBag, field: string, value: unknown, max: number, required: boolean): string | undefined {
  if (value === null || value === undefined) {
    if (required) errors.add(field, "can't be blank")
    return undefined
  }
  if (typeof value !== 'string') {
    errors.add(field, 'must be a string')
    return undefined
  }
  if (required && value.trim() === '') errors.add(field, "can't be blank")
  if (value.length > max) errors.add(field, `is too long (maximum is ${max} characters)`)
  return value
}

function scopeIdOf(errors: FieldErrorBag, value: unknown): number | null | undefined {
  if (value === null || value === '') return null
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value
  if (typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value)) return Number(value)
  errors.add('scope_id', 'must be a positive integer')
  return undefined
}

/**
 * The prompt a create (no `existing`) or a PATCH (`existing`) asks for, or a 422 with every field
 * message. Unknown and read-only members (`id`, `created_at`, `token`, ...) are ignored, so a GET
 * answer can be sent back as a PATCH.
 */
export function promptData(
  input: Record<string, unknown>,
  user: Principal,
  existing?: PromptRecord,
  /** Checks the Liquid of new content: a message, or null when it parses. */
  templateError?: (content: string) => string | null,
): PromptData {
  const errors = new FieldErrorBag()
  const creating = !existing
  const pick = (k: string) => (creating || has(input, k) ? input[k] : undefined)

  const name = creating || has(input, 'name') ? text(errors, 'name', input.name, LIMITS.name, true) : existing.name
  let code = creating || has(input, 'code') ? text(errors, 'code', input.code, LIMITS.code, true) : existing.code
  if (code !== undefined && code.trim() !== '' && !CODE_RE.test(code)) {
    errors.add('code', 'may contain only letters, digits, _ and -')
    code = undefined
  }
  const content = creating || has(input, 'content') ? text(errors, 'content', input.content, LIMITS.content, true) : existing.content
  if (templateError && content !== undefined && content !== existing?.content && !errors.fields.content) {
    const message = templateError(content)
    if (message !== null) errors.add('content', message)
  }

  let kind: Kind | undefined = existing?.kind ?? 'chat'
  const rawKind = pick('kind')
  if (rawKind !== undefined && !(creating && rawKind === null)) {
    if (isKind(rawKind)) kind = rawKind
    else {
      errors.add('kind', 'must be chat or agent')
      kind = undefined
    }
  }

  let scope: Scope | undefined = existing?.scope ?? 'account'
  const rawScope = pick('scope')
  if (rawScope !== undefined && !(creating && rawScope === null)) {
    if (isScope(rawScope)) scope = rawScope
    else {
      errors.add('scope', 'must be one of user, team, department, account')
      scope = undefined
    }
  }

  // scope_id: kept on PATCH unless sent or the scope changed.
  let scopeId: number | null | undefined
  if (has(input, 'scope_id')) scopeId = scopeIdOf(errors, input.scope_id)
  else if (existing && scope === existing.scope) scopeId = existing.scopeId
  else scopeId = null
  if (scope === 'user' && scopeId === null) scopeId = user.id
  if (scope !== undefined && scopeId !== undefined) {
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
  }

  const fields: PromptData['fields'] = {...(existing?.fields ?? {})}
  if (has(input, 'ai_placeholder')) {
    const placeholder = text(errors, 'ai_placeholder', input.ai_placeholder, LIMITS.aiPlaceholder, false)
    if (input.ai_placeholder === null || placeholder === '') delete fields.ai_placeholder
    else if (placeholder !== undefined) fields.ai_placeholder = placeholder
  }

  errors.throwIfAny()
  return {name: name!, code: code!, content: content!, kind: kind!, scope: scope!, scopeId: scopeId ?? null, fields}
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
