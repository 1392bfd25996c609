/** Shapes of the prompts area (platform-api.md "Prompt"). Pure types, no I/O. */
import type {Principal} from '../auth/permissions.js'

/** Field limits of a prompt write (the schemas of src/core/contract/prompts.ts use them). */
export const PROMPT_LIMITS = {name: 255, code: 100, content: 200_000, aiPlaceholder: 1000} as const
/** A prompt code: letters, digits, `_` and `-` (no dots: `:code.agent.md` must stay unambiguous). */
export const PROMPT_CODE_RE = /^[A-Za-z0-9_-]+$/

export const KINDS = ['chat', 'agent'] as const
export type Kind = (typeof KINDS)[number]
export const SCOPES = ['user', 'team', 'department', 'account'] as const
export type Scope = (typeof SCOPES)[number]

/** Layers of the cascade of `/svc/prompt/:code.md`, first found wins. */
export const LAYERS = ['user', 'team', 'department', 'account', 'system'] as const
export type Layer = (typeof LAYERS)[number]

/** The writable fields of a stored prompt, after validation. */
export interface PromptData {
  name: string
  code: string
  content: string
  kind: Kind
  scope: Scope
  scopeId: number | null
  fields: {ai_placeholder?: string; [key: string]: unknown}
}

/** A stored prompt as the store hands it out (the `token` column never leaves the store). */
export interface PromptRecord extends PromptData {
  id: string
  accountId: number
  createdById: number | null
  createdAt: string
  updatedAt: string
}

/** The JSON object of the API: the contract's (src/core/contract/prompts.ts). */
export type {PromptView} from '../contract/prompts.js'
import type {PromptView} from '../contract/prompts.js'

/** Who is looking: decides which stored prompts exist for the caller. */
export interface Viewer {
  accountId: number
  userId: number
  teamIds: number[]
  departmentIds: number[]
}

/** The viewer of a signed-in user. */
export const viewerOf = (user: Principal): Viewer => ({
  accountId: user.accountId, userId: user.id, teamIds: user.teamIds, departmentIds: user.departmentIds,
})

export const ORDER_COLUMNS = ['id', 'created_at', 'updated_at', 'name', 'code'] as const
export type OrderColumn = (typeof ORDER_COLUMNS)[number]

export interface ListFilters {
  q?: string
  code?: string
  kind?: Kind
  scope?: Scope
  orderBy: OrderColumn
  desc: boolean
}

export function toView(r: PromptRecord): PromptView {
  const placeholder = typeof r.fields.ai_placeholder === 'string' ? r.fields.ai_placeholder : null
  return {
    id: r.id,
    name: r.name,
    code: r.code,
    content: r.content,
    kind: r.kind,
    scope: r.scope,
    scope_id: r.scopeId,
    ai_placeholder: placeholder,
    fields: {...r.fields},
    created_by_id: r.createdById,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  }
}
