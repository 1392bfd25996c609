/** Resources (connectors, flows), crons and flow runs (decisions.md "Flows, connectors, crons"). */
import {JsonObject, z, Timestamp, Uuid} from './common.js'

export const RESOURCE_KINDS = ['svc/custom_connector', 'svc/custom_flow'] as const

export const Resource = z.object({
  id: z.number().int(),
  kind: z.enum(RESOURCE_KINDS),
  code: z.string(),
  name: z.string(),
  url: z.string().nullable(),
  has_secret_token: z.boolean().openapi({description: 'The secret itself is write-only'}),
  fields: JsonObject.openapi({description: 'Connector: `methods`; flow: `program`'}),
  created_by_id: z.number().int().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
}).openapi('Resource')

/** Writable members; methods and flow programs are checked by core/flows (resources.ts, program.ts). */
export const ResourceInput = z.looseObject({
  kind: z.enum(RESOURCE_KINDS).optional(),
  code: z.string().optional(),
  name: z.string().optional(),
  url: z.string().nullable().optional(),
  secret_token: z.string().nullable().optional().openapi({description: 'Write-only: never returned'}),
  fields: JsonObject.optional(),
}).openapi('ResourceInput')

export const ResourceBody = z.object({resource: ResourceInput.optional()})
export const ResourceQuery = z.object({kind: z.enum(RESOURCE_KINDS).optional(), code: z.string().optional(), q: z.string().optional()})
export const RunBody = z.looseObject({input: JsonObject.optional()})

export const Cron = z.object({
  id: z.number().int(),
  kind: z.literal('flow'),
  target_code: z.string(),
  schedule: z.string(),
  timezone: z.string().nullable(),
  active: z.boolean(),
  next_run_at: Timestamp.nullable(),
  last_run_at: Timestamp.nullable(),
  last_flow_process_id: Uuid.nullable(),
  created_by_id: z.number().int().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
}).openapi('Cron')

/** Writable members; the schedule, time zone and target flow are checked by core/flows/crons.ts. */
export const CronInput = z.looseObject({
  kind: z.literal('flow').optional(),
  target_code: z.string().optional(),
  schedule: z.string().optional().openapi({example: '0 7 * * 1-5'}),
  timezone: z.string().nullable().optional(),
  active: z.boolean().optional(),
}).openapi('CronInput')

export const CronBody = z.object({cron: CronInput.optional()})

export const FlowProcess = z.object({
  id: Uuid,
  flow_id: z.number().int().nullable(),
  flow_code: z.string(),
  status: z.enum(['pending', 'finished', 'error']),
  trigger: z.enum(['action', 'cron', 'manual']),
  cron_id: z.number().int().nullable(),
  app_id: Uuid.nullable(),
  action: z.string().nullable(),
  user_id: z.number().int().nullable(),
  input: JsonObject,
  output: JsonObject.nullable(),
  error: z.string().nullable(),
  steps: z.number().int(),
  started_at: Timestamp,
  finished_at: Timestamp.nullable(),
  duration_ms: z.number().nullable(),
  created_at: Timestamp,
}).openapi('FlowProcess')

export const ProcessQuery = z.object({
  status: z.string().optional(),
  flow_code: z.string().optional(),
  trigger: z.string().optional(),
  cron_id: z.string().optional(),
  app_id: z.string().optional(),
  limit: z.string().optional(),
  offset: z.string().optional(),
})

export type ResourceView = z.infer<typeof Resource>
export type CronView = z.infer<typeof Cron>
export type FlowProcessView = z.infer<typeof FlowProcess>
