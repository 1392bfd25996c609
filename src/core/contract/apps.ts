/** App shapes (platform-api.md "Apps"). */
import {JsonObject, z, Timestamp, Uuid} from './common.js'

export const APP_ENGINES = ['svelte', 'vue', 'react', 'js', 'html', 'kaboom', 'phaser'] as const
export const CSS_ENGINES = ['tailwind_all', 'tailwind', 'none'] as const

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

/** Writable members; presence, lengths, url_code and actions are checked by core/apps/validate.ts; the source is compiled. */
export const AppInput = z.looseObject({
  name: z.string().optional(),
  url_code: z.string().optional(),
  description: z.string().optional(),
  app_engine: z.enum(APP_ENGINES).optional().openapi({default: 'svelte'}),
  css_engine: z.enum(CSS_ENGINES).optional(),
  source_code: z.string().optional(),
  public: z.boolean().optional(),
  active: z.boolean().optional(),
  db_code: z.string().nullable().optional(),
  show_in_module: z.string().nullable().optional(),
  prompt: z.string().nullable().optional(),
  dashboard_widget: z.boolean().optional(),
  actions: z.array(AppAction).nullable().optional(),
  fields: JsonObject.optional(),
  config: JsonObject.optional(),
}).openapi('AppInput')

export const AppBody = z.object({app: AppInput.optional()})

export const AppListQuery = z.object({
  q: z.string().optional(),
  app_engine: z.string().optional(),
  active: z.enum(['true', 'false']).optional(),
})

export const ReplaceBody = z.looseObject({
  field: z.string().optional().openapi({description: 'Which member to edit (default: the source, or `schema` for a database)'}),
  old_string: z.string().optional(),
  new_string: z.string().optional(),
  old: z.string().optional().openapi({description: 'Short name of old_string'}),
  new: z.string().optional().openapi({description: 'Short name of new_string'}),
  replace_all: z.boolean().optional(),
}).openapi('ReplaceBody')

export const ActionReply = z.object({
  flow_process_id: Uuid,
  status: z.enum(['pending', 'finished', 'error']),
  data: JsonObject.optional(),
  error: z.string().optional(),
}).openapi('ActionReply')

export type AppView = z.infer<typeof App>
export type AppActionView = z.infer<typeof AppAction>
