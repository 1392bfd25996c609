/** Prompt shapes (platform-api.md "Prompt"): the API object, the write input and the list query. */
import {z, Timestamp, Uuid} from './common.js'

export const PROMPT_KINDS = ['chat', 'agent'] as const
export const PROMPT_SCOPES = ['user', 'team', 'department', 'account'] as const
export const PROMPT_ORDER_COLUMNS = ['id', 'created_at', 'updated_at', 'name', 'code'] as const

export const Prompt = z.object({
  id: Uuid,
  name: z.string(),
  code: z.string(),
  content: z.string().openapi({description: 'Liquid template'}),
  kind: z.enum(PROMPT_KINDS),
  scope: z.enum(PROMPT_SCOPES),
  scope_id: z.number().int().nullable(),
  ai_placeholder: z.string().nullable(),
  fields: z.record(z.string(), z.unknown()),
  created_by_id: z.number().int().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
}).openapi('Prompt')

/**
 * The writable members of a prompt. Types only: presence, lengths, the code's characters, the
 * scope against the user's teams and the Liquid syntax are rules of core/prompts/validate.ts
 * (they depend on create vs PATCH, on the stored prompt and on the user), run from the body schema.
 */
export const PromptInput = z.looseObject({
  name: z.string().max(255).optional(),
  code: z.string().max(100).openapi({pattern: '^[A-Za-z0-9_-]+$'}).optional(),
  content: z.string().max(200_000).optional(),
  kind: z.enum(PROMPT_KINDS).optional().openapi({default: 'chat'}),
  scope: z.enum(PROMPT_SCOPES).optional().openapi({default: 'account'}),
  scope_id: z.union([z.number().int().positive(), z.string(), z.null()]).optional(),
  ai_placeholder: z.string().max(1000).nullable().optional(),
}).openapi('PromptInput')

export const PromptBody = z.object({prompt: PromptInput.optional()}).openapi('PromptBody')

const ORDER_VALUES = PROMPT_ORDER_COLUMNS.flatMap((c) => [c, `${c}_desc`]) as [string, ...string[]]

const badQuery = (name: string, allowed: string) => ({error: () => `${name} must be ${allowed}`})

export const PromptListQuery = z.object({
  q: z.string().optional().openapi({description: 'Fragment of name, code or content'}),
  code: z.string().optional(),
  kind: z.enum(PROMPT_KINDS, badQuery('kind', 'chat or agent')).optional(),
  scope: z.enum(PROMPT_SCOPES, badQuery('scope', 'one of user, team, department, account')).optional(),
  order_by: z.enum(ORDER_VALUES, badQuery('order_by', `one of ${PROMPT_ORDER_COLUMNS.join(', ')} (suffix _desc reverses)`)).optional(),
})

export const SystemPrompt = z.object({
  code: z.string(),
  kind: z.enum(PROMPT_KINDS),
  name: z.string(),
  placeholder: z.string().nullable(),
  source: z.enum(['package', 'server']),
}).openapi('SystemPrompt')

export const RenderQuery = z.looseObject({
  date: z.string().optional().openapi({description: '`YYYY-MM-DD` (default today)'}),
  _extra: z.string().optional().openapi({description: 'Code of a prompt appended under "## Additional instructions"'}),
}).openapi({description: 'Any other query parameter is a Liquid variable'})

export type PromptView = z.infer<typeof Prompt>
export type PromptInput = z.infer<typeof PromptInput>
export type SystemPromptInfo = z.infer<typeof SystemPrompt>
