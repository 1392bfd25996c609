/** App shapes (platform-api.md "Apps"): the API object, the create and PATCH inputs, replace, actions. */
import {
  ACTION_NAME_RE, APP_ENGINES, characters, CSS_ENGINES, MAX_ACTIONS, MAX_DESCRIPTION, MAX_NAME, MAX_PROMPT, MAX_SOURCE, MAX_URL_CODE_INPUT,
  normalizeUrlCode, SHOW_IN_MODULES, UUID_RE,
} from '../apps/validate.js'
import {REPLACE_FIELDS} from '../apps/replace.js'
import {DEFAULT_APP_ENGINE, DEFAULT_CSS_ENGINE} from '../../engines/index.js'
import {JsonObject, z, Timestamp, Uuid, envelope} from './common.js'

export {APP_ENGINES, CSS_ENGINES}

export const AppAction = z.object({
  action: z.string(),
  flow_code: z.string(),
  description: z.string().optional(),
  public: z.boolean().optional(),
}).openapi('AppAction')

export const App = z.object({
  id: Uuid,
  name: z.string(),
  url_code: z.string(),
  description: z.string(),
  app_engine: z.string().openapi({enum: [...APP_ENGINES]}),
  css_engine: z.string().openapi({enum: [...CSS_ENGINES]}),
  source_code: z.string(),
  public: z.boolean(),
  active: z.boolean(),
  app_build_time: z.number(),
  css_build_time: z.number(),
  fields: JsonObject,
  config: z.looseObject({url: z.string(), build_hash: z.string()}),
  actions: z.array(AppAction),
  db_code: z.string().nullable(),
  show_in_module: z.string().nullable(),
  created_by_id: z.number().int(),
  updated_by_id: z.number().int().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
}).openapi('App')

/** `GET /svc/engines.json`: the engines of this server, from the registry (src/engines). */
export const Engines = z.object({
  app_engines: z.array(z.object({
    name: z.string(),
    library: z.string().openapi({description: 'The library and its major version the page runs'}),
    language: z.string().openapi({description: 'The language the source is written in, as the registry states it (`ts`, `tsx`, `html`, a component language such as `<framework>+ts`)'}),
    source_file: z.string().openapi({description: 'The file name the source is kept under in an app folder'}),
    builds: z.boolean().openapi({description: 'The server builds the source (the build time is `app_build_time`); else it is served as written'}),
  })),
  css_engines: z.array(z.object({name: z.string()})),
  default_app_engine: z.string(),
  default_css_engine: z.string(),
}).openapi('Engines')

const inList = (values: readonly string[]) => `is not included in the list (${values.join(', ')})`
const engine = z.enum(APP_ENGINES, {error: inList(APP_ENGINES)})
const cssEngine = z.enum(CSS_ENGINES, {error: inList(CSS_ENGINES)})
/** A text that must not be blank once trimmed (absent, null, `''` or spaces: "can't be blank"). */
const name = z.string().max(MAX_NAME).refine((v) => v.trim() !== '', "can't be blank").transform((v) => v.trim())
/** The source: counted in characters (code points), so 200,000 emoji pass; blank is refused. */
const sourceCode = z.string()
  .refine((v) => v.length <= MAX_SOURCE || characters(v) <= MAX_SOURCE, `is too long (maximum is ${MAX_SOURCE} characters)`)
  .refine((v) => v.trim() !== '', "can't be blank")
  .openapi({maxLength: MAX_SOURCE})
/** url_code: normalised by the server (normalizeUrlCode); null or blank derives it from the name. */
const urlCode = z.string().max(MAX_URL_CODE_INPUT).nullable()
  .refine((v) => v === null || v.trim() === '' || normalizeUrlCode(v) !== '', 'must contain letters or digits')
  .refine((v) => v === null || v.trim() === '' || !UUID_RE.test(normalizeUrlCode(v)), 'cannot have the form of an app id')
  .openapi({description: 'Lower-cased, accents folded, spaces to `-`, other characters dropped; null or blank: derived from the name'})
/** A flag: a boolean, or `"true"`/`"1"`/`1` and `"false"`/`"0"`/`0` as forms and query strings send it. */
const flag = z.union([z.boolean(), z.literal(['true', '1', 1]).transform(() => true), z.literal(['false', '0', 0]).transform(() => false)],
  {error: 'must be true or false'}).openapi({type: 'boolean'})
/** An optional text that may be null; a blank one is null (db_code, show_in_module). */
const blankIsNull = (max: number) => z.string().max(max).nullable().transform((v) => (v?.trim() ? v.trim() : null))
const showInModule = blankIsNull(100)
  .refine((v) => v === null || (SHOW_IN_MODULES as readonly string[]).includes(v), inList(SHOW_IN_MODULES))
  .openapi({enum: [...SHOW_IN_MODULES]})
const fields = JsonObject.nullable().transform((v) => ({...(v ?? {})}))

const ACTION_NAME = 'must be 1-64 characters of letters, digits, _ and -'
/**
 * `actions`: each problem is named under `actions` (`actions[0].action must be ...`), the first
 * of each item only, as the list is one field of the app. null is an empty list.
 */
const actions = z.array(z.unknown(), {error: 'must be an array of actions'}).max(MAX_ACTIONS, `has too many actions (maximum is ${MAX_ACTIONS})`)
  .nullable()
  .superRefine((items, ctx) => {
    const seen = new Set<string>()
    items?.forEach((item, i) => {
      const where = `actions[${i}]`
      const problem = actionProblem(item, where, seen)
      if (problem) ctx.addIssue({code: 'custom', message: problem, input: item})
    })
  })
  .transform((items) => (items ?? []).map((item) => {
    const a = item as {action: string; flow_code: string; description?: string | null; public?: boolean}
    return {action: a.action, flow_code: a.flow_code.trim(), description: a.description ?? '', public: a.public === true}
  }))
  .openapi({type: 'array', items: {$ref: '#/components/schemas/AppAction'}, maxItems: MAX_ACTIONS})

function actionProblem(item: unknown, where: string, seen: Set<string>): string | null {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return `${where} must be an object`
  const a = item as Record<string, unknown>
  if (typeof a.action !== 'string' || !ACTION_NAME_RE.test(a.action)) return `${where}.action ${ACTION_NAME}`
  if (seen.has(a.action)) return `${where}.action "${a.action}" is declared twice`
  seen.add(a.action)
  if (typeof a.flow_code !== 'string' || !a.flow_code.trim()) return `${where}.flow_code can't be blank`
  if (a.description !== undefined && a.description !== null && typeof a.description !== 'string') return `${where}.description must be a string`
  if (a.public !== undefined && typeof a.public !== 'boolean') return `${where}.public must be true or false`
  return null
}

/** The members a PATCH may send; what is absent keeps its value. Unknown members (`id`, `config`...) are ignored. */
const members = {
  name: name.optional(),
  url_code: urlCode.optional(),
  description: z.string().max(MAX_DESCRIPTION).nullable().transform((v) => v ?? '').optional(),
  app_engine: engine.optional(),
  css_engine: cssEngine.optional(),
  source_code: sourceCode.optional(),
  public: flag.optional(),
  active: flag.optional(),
  db_code: blankIsNull(255).optional(),
  show_in_module: showInModule.optional(),
  prompt: z.string().max(MAX_PROMPT).nullable().optional(),
  dashboard_widget: flag.optional().openapi({description: 'Stored as `fields.dashboard_widget`'}),
  actions: actions.optional(),
  fields: fields.optional(),
}

export const AppPatch = z.looseObject(members).openapi('AppPatch')
/** A create: `name` and `source_code` are required; app_engine and css_engine take their defaults. */
export const AppInput = z.looseObject({
  ...members,
  name,
  source_code: sourceCode,
  app_engine: engine.optional().openapi({default: DEFAULT_APP_ENGINE}),
  css_engine: cssEngine.optional().openapi({default: DEFAULT_CSS_ENGINE}),
}).openapi('AppInput')

/** An absent envelope is an empty one: its missing members are named (`name: can't be blank`). */
export const AppBody = envelope('app', AppInput).openapi('AppBody')
export const AppPatchBody = envelope('app', AppPatch).openapi('AppPatchBody')

export const AppListQuery = z.object({
  q: z.string().optional(),
  app_engine: z.string().optional(),
  active: z.enum(['true', 'false'], {error: () => 'active must be true or false'}).transform((v) => v === 'true').optional(),
})

/**
 * A replace body (decisions.md "Replace endpoints") over the members `fields` names: `old_string`
 * (or `old`) must be a non-empty string, `new_string` (or `new`) a string, possibly empty; checked
 * even when another member is invalid, so one 422 names every problem.
 * Answers `{field, oldString, newString, replaceAll}` (core/replace.ts). Not exported: its generic
 * type, written into dist/*.d.ts, fails a user's strict project (TS2536); the schema built from it
 * is declared with `field` resolved (test/deploy/sdk-types.test.ts).
 */
const replaceBodyOf = <F extends string>(names: readonly [F, ...F[]]) =>
  z.looseObject({
    field: z.enum(names, {error: `must be one of ${names.join(', ')}`}),
    old_string: z.unknown().optional().openapi({type: 'string'}),
    new_string: z.unknown().optional().openapi({type: 'string'}),
    old: z.unknown().optional().openapi({type: 'string', description: 'Short name of old_string'}),
    new: z.unknown().optional().openapi({type: 'string', description: 'Short name of new_string'}),
    replace_all: z.boolean({error: 'must be true or false'}).optional(),
  }).superRefine((body, ctx) => {
    const oldString = body.old_string ?? body.old
    const newString = body.new_string ?? body.new
    if (typeof oldString !== 'string' || oldString === '') ctx.addIssue({code: 'custom', path: ['old_string'], message: "can't be blank", input: oldString})
    if (typeof newString !== 'string') ctx.addIssue({code: 'custom', path: ['new_string'], message: 'is required (a string, may be empty)', input: newString})
  }, {when: (payload) => typeof payload.value === 'object' && payload.value !== null}).transform((body) => ({
    field: body.field, oldString: (body.old_string ?? body.old) as string, newString: (body.new_string ?? body.new) as string, replaceAll: body.replace_all === true,
  }))

/** The body of every replace endpoint as the document shows it (each route narrows `field`). */
export const ReplaceBody = z.looseObject({
  field: z.string().optional().openapi({description: 'Which member to edit (default: the source, or `schema` for a database)'}),
  old_string: z.string().optional(),
  new_string: z.string().optional(),
  old: z.string().optional().openapi({description: 'Short name of old_string'}),
  new: z.string().optional().openapi({description: 'Short name of new_string'}),
  replace_all: z.boolean().optional(),
}).openapi('ReplaceBody')

export const AppReplaceBody = replaceBodyOf(REPLACE_FIELDS).openapi('AppReplaceBody')

export const ActionReply = z.object({
  flow_process_id: Uuid,
  status: z.enum(['pending', 'finished', 'error']),
  data: JsonObject.optional(),
  error: z.string().optional(),
}).openapi('ActionReply')

export const ActionStatusQuery = z.object({
  flow_process_id: z.string({error: () => 'flow_process_id is required'}).openapi({description: 'The `flow_process_id` the action answered'}),
})

export type AppView = z.infer<typeof App>
export type AppActionView = z.infer<typeof AppAction>
/** An action as stored: every member set (the create/PATCH input fills description and public). */
export type AppAction = Required<AppActionView>
export type AppCreate = z.output<typeof AppInput>
export type AppPatch = z.output<typeof AppPatch>
export type ActionReplyView = z.infer<typeof ActionReply>

/** An asset of an app, without its bytes (docs/apps.md "Assets"). */
export const AppAsset = z.object({
  path: z.string().openapi({example: 'assets/sky.png'}),
  content_type: z.string().openapi({example: 'image/png'}),
  size: z.number().int(),
  sha256: z.string(),
  updated_at: Timestamp,
}).openapi('AppAsset')

/** An asset to store: its path (relative, as the app loads it) and its bytes in base64. */
export const AppAssetInput = z.object({
  path: z.string().max(1000),
  data_base64: z.string().openapi({description: 'The file, base64-encoded'}),
}).openapi('AppAssetInput')
export const AppAssetBody = envelope('asset', AppAssetInput).openapi('AppAssetBody')
export const AppAssetQuery = z.object({path: z.string().max(1000)})
