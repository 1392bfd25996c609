/** Prompt shapes (platform-api.md "Prompt"): the API object, the write input and the list query. */
import {PROMPT_CODE_RE, PROMPT_LIMITS} from '../prompts/types.js'
import {z, Timestamp, Uuid, envelope} from './common.js'

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


/** A text a prompt must have: absent, null, `''` or spaces are "can't be blank". */
const required = (max: number) => z.string().max(max).refine((v) => v.trim() !== '', "can't be blank")
const code = required(PROMPT_LIMITS.code)
  .refine((v) => v.trim() === '' || PROMPT_CODE_RE.test(v), 'may contain only letters, digits, _ and -')
  .openapi({pattern: '^[A-Za-z0-9_-]+$'})
const kind = z.enum(PROMPT_KINDS, {error: 'must be chat or agent'})
const scope = z.enum(PROMPT_SCOPES, {error: 'must be one of user, team, department, account'})
/** `scope_id`: a positive integer (or its digits); null or `''` clears it. */
const positive = 'must be a positive integer'
const scopeId = z.union([
  z.null(), z.literal(''), z.number().int(positive).positive(positive).max(Number.MAX_SAFE_INTEGER, positive), z.string().regex(/^[1-9][0-9]{0,15}$/, positive),
], {error: positive}).transform((v) => (v === null || v === '' ? null : Number(v)))
const placeholder = z.string().max(PROMPT_LIMITS.aiPlaceholder).nullable()
/**
 * `arguments` (an svc extension, stored in `fields.arguments`): what an agent is told about the
 * template's variables (MCP `prompts/list`), over what is inferred from the template —
 * `{"topic": "What it is about"}` or `{"topic": {"description": "…", "required": false}}`; null clears it.
 */
const argumentSpec = z.union([
  z.string().max(500),
  z.strictObject({description: z.string().max(500).optional(), required: z.boolean().optional()}),
], {error: 'must be a description or {description, required}'})
const promptArguments = z.record(z.string().regex(/^[A-Za-z_][\w-]{0,63}$/, 'must be a variable name'), argumentSpec)
  .refine((v) => Object.keys(v).length <= 50, 'may declare at most 50 arguments').nullable()
  .openapi({description: 'Descriptions and required flags of the template\'s variables for agents (MCP prompts); stored in fields.arguments'})
/** Content: a Liquid template that parses (liquidjs is loaded on the first write, not to list routes). */
const content = required(PROMPT_LIMITS.content).openapi({description: 'Liquid template'}).superRefine(async (value, ctx) => {
  if (value.trim() === '' || value.length > PROMPT_LIMITS.content) return
  const {templateError} = await import('../prompts/render.js')
  const message = templateError(value)
  if (message !== null) ctx.addIssue({code: 'custom', message, input: value})
})

/**
 * The members of a prompt a create takes (unknown and read-only members such as `id` or `token` are
 * ignored, so a GET answer can be sent back). The scope against the user's own id, teams and
 * department is a rule of core/prompts/validate.ts: it depends on the user and the stored prompt.
 */
export const PromptInput = z.looseObject({
  name: required(PROMPT_LIMITS.name),
  code,
  content,
  kind: kind.nullish().openapi({default: 'chat'}),
  scope: scope.nullish().openapi({default: 'account'}),
  scope_id: scopeId.optional(),
  ai_placeholder: placeholder.optional(),
  arguments: promptArguments.optional(),
}).openapi('PromptInput')

/** A PATCH: any member of a create; what is absent keeps its value (null is not "absent" for name, code, content, kind, scope). */
export const PromptPatch = z.looseObject({
  name: required(PROMPT_LIMITS.name).optional(),
  code: code.optional(),
  content: content.optional(),
  kind: kind.optional(),
  scope: scope.optional(),
  scope_id: scopeId.optional(),
  ai_placeholder: placeholder.optional(),
  arguments: promptArguments.optional(),
}).openapi('PromptPatch')

/** An absent envelope is an empty one: its missing members are named (`name: can't be blank`). */
export const PromptBody = envelope('prompt', PromptInput).openapi('PromptBody')
export const PromptPatchBody = envelope('prompt', PromptPatch).openapi('PromptPatchBody')

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
export type PromptInput = z.input<typeof PromptInput>
export type PromptCreate = z.output<typeof PromptInput>
export type PromptPatch = z.output<typeof PromptPatch>
export type SystemPromptInfo = z.infer<typeof SystemPrompt>
