/** Validation of dashboard request bodies and queries; 422 with a field map when wrong. Pure. */
import {FieldErrorBag} from '../errors.js'
import {CONTEXTS, DEFAULT_CONTEXT, type DashboardContext, isContext} from './tiles.js'

export const MAX_NAME_LENGTH = 100

export interface CreateInput {
  name: string
  context: DashboardContext
  /** The raw layout (normalised later, with the account's apps); undefined → the standard layout. */
  layout: unknown[] | undefined
  shared: boolean
  is_default: boolean
}

export interface UpdateInput {
  name?: string
  layout?: unknown[]
  is_default?: boolean
}

export type SelectTarget = {kind: 'dashboard'; id: number} | {kind: 'builtin'} | {kind: 'default'}

const CONTEXT_MESSAGE = `is not included in the list (${CONTEXTS.join(', ')})`

function checkName(errors: FieldErrorBag, value: unknown): string | undefined {
  if (typeof value !== 'string') {
    errors.add('name', value === undefined || value === null ? "can't be blank" : 'must be a string')
    return undefined
  }
  const name = value.trim()
  if (name === '') errors.add('name', "can't be blank")
  else if ([...name].length > MAX_NAME_LENGTH) errors.add('name', `is too long (maximum is ${MAX_NAME_LENGTH} characters)`)
  return name
}

function checkBoolean(errors: FieldErrorBag, field: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'boolean') {
    errors.add(field, 'must be true or false')
    return undefined
  }
  return value
}

function checkLayout(errors: FieldErrorBag, value: unknown): unknown[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value)) {
    errors.add('layout', 'must be an array of layout items')
    return undefined
  }
  return value
}

/** `{dashboard: {name, context, layout, shared, is_default}}` of POST. */
export function parseCreate(d: Record<string, unknown>): CreateInput {
  const errors = new FieldErrorBag()
  const name = checkName(errors, d.name)
  let context: DashboardContext = DEFAULT_CONTEXT
  if (d.context !== undefined && d.context !== null && d.context !== '') {
    if (isContext(d.context)) context = d.context
    else errors.add('context', CONTEXT_MESSAGE)
  }
  const layout = checkLayout(errors, d.layout)
  const shared = checkBoolean(errors, 'shared', d.shared) ?? false
  const isDefault = checkBoolean(errors, 'is_default', d.is_default) ?? false
  if (isDefault && !shared) errors.add('is_default', 'is only for company dashboards (shared: true)')
  errors.throwIfAny()
  return {name: name!, context, layout, shared, is_default: isDefault}
}

/**
 * `{dashboard: {name, layout, is_default}}` of PATCH (any subset). `context` and `shared` are set
 * at creation only: sending the current value is accepted (a fetched object can be sent back), another is a 422.
 * Other members (`id`, `editable`, `updated_at`, ...) are ignored.
 */
export function parseUpdate(d: Record<string, unknown>, current: {context: string; shared: boolean}): UpdateInput {
  const errors = new FieldErrorBag()
  const out: UpdateInput = {}
  if (d.name !== undefined) out.name = checkName(errors, d.name)
  if (d.layout !== undefined) out.layout = checkLayout(errors, d.layout)
  const isDefault = checkBoolean(errors, 'is_default', d.is_default)
  if (isDefault !== undefined) {
    if (isDefault && !current.shared) errors.add('is_default', 'is only for company dashboards (shared: true)')
    out.is_default = isDefault
  }
  if (d.context !== undefined && d.context !== current.context) errors.add('context', 'cannot be changed')
  if (d.shared !== undefined && d.shared !== current.shared) errors.add('shared', 'cannot be changed')
  errors.throwIfAny()
  return out
}

/** A `context` query or member: default `main`, one of the eight contexts, else 422. */
export function parseContext(value: unknown, field = 'context'): DashboardContext {
  if (value === undefined || value === null || value === '') return DEFAULT_CONTEXT
  if (isContext(value)) return value
  const errors = new FieldErrorBag()
  errors.add(field, CONTEXT_MESSAGE)
  errors.throwIfAny()
  return DEFAULT_CONTEXT
}

const ID_RE = /^[1-9][0-9]{0,14}$/

/** A dashboard id from a path or body (positive integer, or its decimal string), else null. */
export function parseId(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : null
  if (typeof value === 'string' && ID_RE.test(value)) return Number(value)
  return null
}

/** Top-level `{context, dashboard_id}` of `PATCH /toolkit/dashboards/select.json`. */
export function parseSelect(body: Record<string, unknown>): {context: DashboardContext | null; target: SelectTarget} {
  const errors = new FieldErrorBag()
  let context: DashboardContext | null = null
  if (body.context !== undefined && body.context !== null && body.context !== '') {
    if (isContext(body.context)) context = body.context
    else errors.add('context', CONTEXT_MESSAGE)
  }
  let target: SelectTarget = {kind: 'default'}
  const raw = body.dashboard_id
  if (raw === undefined || raw === null) errors.add('dashboard_id', "must be a dashboard id, \"builtin\" or an empty string")
  else if (raw === '') target = {kind: 'default'}
  else if (raw === 'builtin') target = {kind: 'builtin'}
  else {
    const id = parseId(raw)
    if (id === null) errors.add('dashboard_id', "must be a dashboard id, \"builtin\" or an empty string")
    else target = {kind: 'dashboard', id}
  }
  errors.throwIfAny()
  return {context, target}
}
