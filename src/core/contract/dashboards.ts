/** Dashboard shapes (platform-api.md "Dashboards", decisions.md "Dashboards"). */
import {z, Timestamp} from './common.js'

export const DASHBOARD_CONTEXTS = ['main', 'crm', 'cms', 'organize', 'mail', 'kb', 'marketing', 'account'] as const
export const TILE_SIZES = ['quarter', 'half', 'three_quarters', 'full'] as const

export const LayoutItem = z.object({
  id: z.string(),
  key: z.string().openapi({description: 'Tile key (`kpi`, `todo`, `svc_app:<app id>`, ...)'}),
  size: z.enum(TILE_SIZES),
  config: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
}).openapi('LayoutItem')

export const Dashboard = z.object({
  id: z.number().int(),
  name: z.string(),
  context: z.string(),
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
  context: z.string(),
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

/** Writable members; blank names, lengths and the layout's tiles are checked by core/dashboards/input.ts. */
export const DashboardInput = z.looseObject({
  name: z.string().max(100).optional(),
  context: z.enum(DASHBOARD_CONTEXTS).optional().openapi({default: 'main'}),
  layout: z.array(z.unknown()).optional().openapi({description: 'Layout items (normalised: unknown tiles dropped, sizes defaulted)'}),
  shared: z.boolean().optional(),
  is_default: z.boolean().optional(),
}).openapi('DashboardInput')

export const DashboardBody = z.object({dashboard: DashboardInput.optional()})

export const SelectBody = z.looseObject({
  context: z.enum(DASHBOARD_CONTEXTS).optional(),
  dashboard_id: z.union([z.number().int(), z.string()]).nullable().optional()
    .openapi({description: 'A dashboard id, `builtin` (the standard layout) or empty (the company default)'}),
}).openapi('DashboardSelect')

export const ContextQuery = z.object({context: z.string().optional().openapi({enum: [...DASHBOARD_CONTEXTS]})})
export const WidgetQuery = z.object({key: z.string().optional().openapi({description: 'Tile key (required)'})})

export type DashboardView = z.infer<typeof Dashboard>
export type WidgetsView = z.infer<typeof Widgets>
export type SelectView = z.infer<typeof Selection>
export type WidgetView = z.infer<typeof Widget>
