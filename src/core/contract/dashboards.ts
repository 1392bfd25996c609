/**
 * Dashboard shapes (platform-api.md "Dashboards", decisions.md "Dashboards"): the API objects and
 * every check of a request that a schema can say, with today's messages. What only code can say
 * stays in core/dashboards: the layout's tiles against the account (normalizeLayout), and a PATCH
 * against the stored dashboard (`patchRules`: `context` and `shared` are set at creation).
 */
import {CONTEXTS, DEFAULT_CONTEXT, SIZES} from '../dashboards/tiles.js'
import {COMPANY_ONLY, DASHBOARD_ID_RE} from '../dashboards/names.js'
import {z, Timestamp, envelope} from './common.js'

export {COMPANY_ONLY, DASHBOARD_ID_RE}

export const MAX_NAME_LENGTH = 100
export const CONTEXT_MESSAGE = `is not included in the list (${CONTEXTS.join(', ')})`
const ID_MESSAGE = 'must be a dashboard id, "builtin" or an empty string'


const TileConfig = z.record(z.string(), z.union([z.string(), z.array(z.string())]))

export const LayoutItem = z.object({
  id: z.string(),
  key: z.string().openapi({description: 'Tile key (`kpi`, `todo`, `svc_app:<app id>`, ...)'}),
  size: z.enum(SIZES),
  config: TileConfig,
}).openapi('LayoutItem')

export const Dashboard = z.object({
  id: z.number().int(),
  name: z.string(),
  context: z.enum(CONTEXTS),
  layout: z.array(LayoutItem),
  shared: z.boolean(),
  is_default: z.boolean(),
  editable: z.boolean(),
  created_by_id: z.number().int(),
  updated_at: Timestamp,
}).openapi('Dashboard')

export const DashboardChoice = z.object({id: z.number().int(), name: z.string(), shared: z.boolean(), is_default: z.boolean()})

export const Widgets = z.object({
  current_id: z.union([z.number().int(), z.literal('builtin')]),
  layout: z.array(LayoutItem),
  dashboards: z.array(DashboardChoice),
}).openapi('Widgets')

export const Selection = Widgets.extend({
  context: z.enum(CONTEXTS),
  dashboard_id: z.union([z.number().int(), z.literal('builtin'), z.literal('')]),
}).openapi('DashboardSelection')

export const Widget = z.object({
  key: z.string(),
  name: z.string(),
  settings: z.record(z.string(), z.object({
    options: z.array(z.string()).nullable(),
    default: z.union([z.string(), z.array(z.string())]).nullable(),
    multiple: z.boolean(),
    text: z.boolean(),
  })),
  config: z.record(z.string(), z.unknown()),
}).openapi('Widget')

/** A tile of the catalogue as the caller may add it (or why not): the console's "add a tile" list. */
export const TileChoice = z.object({
  key: z.string(),
  name: z.string(),
  default_size: z.enum(SIZES),
  available: z.boolean(),
  why: z.string().nullable().openapi({description: 'Why the tile is not offered (module, permission, app state), null when it is'}),
}).openapi('TileChoice')

// ------------------------------------------------------------------------------------ requests

/** A name: trimmed, not blank, at most 100 characters (counted as characters, not UTF-16 units). */
const name = z.string().trim().min(1)
  .refine((v) => [...v].length <= MAX_NAME_LENGTH, `is too long (maximum is ${MAX_NAME_LENGTH} characters)`)
  .openapi({maxLength: MAX_NAME_LENGTH})
/** One of the eight contexts; null and `''` are no context (the default). */
const context = z.union([z.enum(CONTEXTS), z.literal(''), z.null()], {error: CONTEXT_MESSAGE}).optional()
  .transform((v) => v || undefined)
  .openapi({description: `One of ${CONTEXTS.join(', ')}`})
const flag = z.boolean({error: 'must be true or false'})
/** The raw items: which tiles stay is a rule against the account (core/dashboards/layout.ts normalizeLayout). */
const layout = z.array(z.unknown(), {error: 'must be an array of layout items'})
  .openapi({description: 'Layout items, normalised: unknown tiles dropped, at most 60 kept, sizes defaulted, config cleaned'})

/**
 * The members of a create (other members, such as those of a fetched object, are ignored). Without
 * a layout, the standard one of the context. `is_default` needs `shared: true`.
 */
export const DashboardInput = z.object({
  name,
  context: context.transform((v) => v ?? DEFAULT_CONTEXT).openapi({default: DEFAULT_CONTEXT}),
  layout: layout.optional(),
  shared: flag.default(false).openapi({description: '`true` makes a company dashboard (permission `account`)'}),
  is_default: flag.default(false).openapi({description: 'Company dashboards only: the start dashboard of its context'}),
}).refine((d) => !(d.is_default === true && d.shared !== true), {
  message: COMPANY_ONLY, path: ['is_default'],
  // Also beside other fields' messages (a blank name), as long as there is an object to read.
  when: (p) => typeof p.value === 'object' && p.value !== null,
}).openapi('DashboardInput')

/**
 * A PATCH: any subset of name, layout, is_default. `context` and `shared` are set at creation: the
 * stored dashboard decides (sending its current values back is accepted), see core/dashboards/input.ts.
 */
export const DashboardPatch = z.object({
  name: name.optional(),
  layout: layout.optional(),
  is_default: flag.optional(),
}).openapi('DashboardPatch')

/** An absent envelope is an empty one: its missing members are named (`name: can't be blank`). */
export const DashboardBody = envelope('dashboard', DashboardInput).openapi('DashboardBody')
export const DashboardPatchBody = envelope('dashboard', DashboardPatch).openapi('DashboardPatchBody')

/** What `dashboard_id` of a selection asks for: a dashboard, the standard layout, or the company default. */
export const DashboardTarget = z.union([
  z.literal(''),
  z.literal('builtin'),
  z.number({error: ID_MESSAGE}).int().positive(),
  z.string({error: ID_MESSAGE}).regex(DASHBOARD_ID_RE),
], {error: ID_MESSAGE}).transform((v): SelectionTarget =>
  v === '' ? {kind: 'default'} : v === 'builtin' ? {kind: 'builtin'} : {kind: 'dashboard', id: Number(v)},
).openapi({description: 'A dashboard id, `builtin` (the standard layout) or `""` (the company default)'})

export type SelectionTarget = {kind: 'dashboard'; id: number} | {kind: 'builtin'} | {kind: 'default'}

/** Top-level `{context, dashboard_id}` of `PATCH /toolkit/dashboards/select.json`. */
export const SelectBody = z.object({context, dashboard_id: DashboardTarget})
  .transform(({context, dashboard_id}) => ({context: context ?? null, target: dashboard_id}))
  .openapi('DashboardSelect')

/** Query `context` (list: none = every context; widgets: none = `main`); a value outside the eight is a 422. */
export const ContextQuery = z.object({context: z.enum(CONTEXTS, {error: CONTEXT_MESSAGE}).optional()})
export const WidgetQuery = z.object({key: z.string().openapi({description: 'Tile key'})})

export type LayoutItem = z.infer<typeof LayoutItem>
export type TileConfig = z.infer<typeof TileConfig>
export type DashboardView = z.infer<typeof Dashboard>
export type DashboardChoice = z.infer<typeof DashboardChoice>
export type WidgetsView = z.infer<typeof Widgets>
export type SelectView = z.infer<typeof Selection>
export type WidgetView = z.infer<typeof Widget>
export type TileChoiceView = z.infer<typeof TileChoice>
export type DashboardCreate = z.output<typeof DashboardInput>
export type DashboardUpdate = z.output<typeof DashboardPatch>
export type DashboardSelect = z.output<typeof SelectBody>
