/** Resources (connectors, flows), crons and flow runs (decisions.md "Flows, connectors, crons"). */
import {AsyncLocalStorage} from 'node:async_hooks'
import {cronRules, MAX_SCHEDULE, MAX_TIMEZONE, normalizeSchedule, timezoneProblem, type CronContext} from '../flows/crons.js'
import {PROCESS_STATUSES, TRIGGERS} from '../flows/processes.js'
import {DB_CHANGE_OPS} from '../flows/db-changes.js'
import {CODE_RE} from '../flows/program.js'
import {
  CODE_MESSAGE, MAX_NAME, MAX_SECRET, MIN_SECRET, RESOURCE_KINDS, resourceRules, secretProblem, urlProblem, type ResourceKind,
} from '../flows/resources.js'
import {JsonObject, z, Timestamp, Uuid, envelope} from './common.js'

export {RESOURCE_KINDS}

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

/** Unknown members are refused one by one (`color: is not a known field`); zod has already dropped `__proto__`. */
const knownOnly = (allowed: readonly string[]) => (value: Record<string, unknown>, ctx: z.core.$RefinementCtx) => {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) ctx.addIssue({code: 'custom', path: [key], message: 'is not a known field', input: value[key]})
}
/**
 * Checks that run even when a member is invalid, so one 422 names every problem (zod skips them by
 * default) — but only on an object (a document generator probes schemas with null).
 */
const always = {when: (payload: {value: unknown}) => typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value)}

const kindError = (iss: {input?: unknown}) => (iss.input === undefined ? "can't be blank" : `must be one of ${RESOURCE_KINDS.join(', ')}`)
const resourceKind = z.enum(RESOURCE_KINDS, {error: kindError})
const resourceCode = z.string({error: "can't be blank"})
  .refine((v) => v.trim() !== '', "can't be blank")
  .refine((v) => v.trim() === '' || CODE_RE.test(v), CODE_MESSAGE)
  .openapi({pattern: CODE_RE.source})
/** `url`: null or `''` clears it; else an absolute http(s) address without credentials, query or fragment. */
const url = z.string().nullable()
  .superRefine((v, ctx) => {
    const problem = v ? urlProblem(v) : null
    if (problem) ctx.addIssue({code: 'custom', message: problem, input: v})
  })
  .transform((v) => v || null)
/** `secret_token`: write-only; null or `''` clears it; else 8-4096 printable ASCII characters. */
const secret = z.string().nullable()
  .superRefine((v, ctx) => {
    const problem = v ? secretProblem(v) : null
    if (problem) ctx.addIssue({code: 'custom', message: problem, input: v})
  })
  .transform((v) => v || null)
  .openapi({description: 'Write-only: never returned', minLength: MIN_SECRET, maxLength: MAX_SECRET})
/** `fields`: an object (null is as absent); a PATCH merges it at the top level, a key sent as null is removed. */
const fields = JsonObject.nullable().transform((v) => v ?? undefined)

const RESOURCE_MEMBERS = ['kind', 'code', 'name', 'url', 'secret_token', 'fields']
const resourceMembers = {
  kind: resourceKind.optional(),
  code: resourceCode.optional(),
  name: z.string().max(MAX_NAME).nullable().optional().openapi({description: 'Default: the code'}),
  url: url.optional(),
  secret_token: secret.optional(),
  fields: fields.optional().openapi({description: 'Connector: `methods`; flow: `program`'}),
}

/** A member as the kind rules see it on create: the value when it passed its own schema, else absent. */
const valid = <T>(schema: z.ZodType<T>, value: unknown): T | undefined => {
  const r = schema.safeParse(value)
  return r.success ? r.data : undefined
}

/**
 * A create: `kind` and `code` are required; the kind rules (a connector's url and methods, a flow's
 * program: core/flows/resources.ts) run in the same pass, so one 422 names every problem.
 */
export const ResourceInput = z.looseObject({...resourceMembers, kind: resourceKind, code: resourceCode})
  .superRefine((value, ctx) => {
    knownOnly(RESOURCE_MEMBERS)(value, ctx)
    const kind = valid(resourceKind, value.kind) as ResourceKind | undefined
    const given = value.url as unknown
    const sentUrl = valid(url, given) ?? null
    const secretToken = valid(secret, value.secret_token)
    const body = valid(fields, value.fields) ?? {}
    const add = (field: string, message: string) => ctx.addIssue({code: 'custom', path: field.split('.'), message, input: value})
    resourceRules({kind, url: sentUrl, hasSecret: !!secretToken, fields: body}, add, given !== undefined && given !== null && given !== '' && !sentUrl)
  }, always)
  .openapi('ResourceInput')

/** A PATCH: any member; the kind rules run on the merged resource in core (resourceData), against the stored one. */
export const ResourcePatch = z.looseObject(resourceMembers).superRefine(knownOnly(RESOURCE_MEMBERS), always).openapi('ResourcePatch')

/** An absent envelope is an empty one: its missing members are named (`name: can't be blank`). */
export const ResourceBody = envelope('resource', ResourceInput).openapi('ResourceBody')
export const ResourcePatchBody = envelope('resource', ResourcePatch).openapi('ResourcePatchBody')

const badQuery = (name: string, allowed: string) => ({error: () => `${name} must be ${allowed}`})
export const ResourceQuery = z.object({
  kind: z.enum(RESOURCE_KINDS, badQuery('kind', `one of ${RESOURCE_KINDS.join(', ')}`)).optional(),
  code: z.string().optional(),
  q: z.string().optional().transform((v) => v?.slice(0, 200) || undefined).openapi({type: 'string'}),
})
/** `{input: {...}}`: the run's input (absent: `{}`). */
export const RunBody = z.looseObject({input: JsonObject.optional()}).openapi('RunBody')

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

/**
 * What the cron rules check a body against (the account's flows, the stored cron, the server's
 * shortest interval), set by the route's middleware for the parse of one request. Without it (a
 * client checking a body), only the rules of the body itself run.
 */
export const cronContext: ContextSlot<CronContext> = new AsyncLocalStorage<CronContext>()

/** The part of AsyncLocalStorage the routes use: declared here so that the typed client's .d.ts need no @types/node. */
interface ContextSlot<T> {
  getStore(): T | undefined
  run<R>(store: T, callback: () => R): R
}

const CRON_MEMBERS = ['kind', 'target_code', 'schedule', 'timezone', 'active']
const targetCode = z.string({error: "can't be blank"}).min(1, "can't be blank").refine((v) => v === '' || CODE_RE.test(v), 'must be a flow code')
const schedule = z.string({error: "can't be blank"})
  .refine((v) => v.trim() !== '', "can't be blank")
  .max(MAX_SCHEDULE)
  .transform(normalizeSchedule)
  .openapi({example: '0 7 * * 1-5', description: 'A cron expression (5 fields, or 6 with seconds), or @hourly, @daily...'})
const timezoneName = 'must be an IANA time zone name'
const timezone = z.string({error: timezoneName}).max(MAX_TIMEZONE, timezoneName).nullable()
  .refine((v) => !v || !timezoneProblem(v), 'is not a known IANA time zone')
  .transform((v) => v || null)
const cronMembers = {
  kind: z.literal('flow', {error: 'must be flow'}).optional(),
  target_code: targetCode.optional(),
  schedule: schedule.optional(),
  timezone: timezone.optional(),
  active: z.boolean({error: 'must be true or false'}).optional(),
}
/** Unknown members, then the rules against the account and the stored cron (core/flows/crons.ts), in the same pass. */
const cronChecks = (value: Record<string, unknown>, ctx: z.core.$RefinementCtx) => {
  knownOnly(CRON_MEMBERS)(value, ctx)
  const context = cronContext.getStore()
  if (context) cronRules(value, context, (field, message) => ctx.addIssue({code: 'custom', path: [field], message, input: value[field]}))
}

/** A create: `target_code` (a flow of the account) and `schedule` are required. */
export const CronInput = z.looseObject({...cronMembers, target_code: targetCode, schedule}).superRefine(cronChecks, always).openapi('CronInput')
export const CronPatch = z.looseObject(cronMembers).superRefine(cronChecks, always).openapi('CronPatch')

/** An absent envelope is an empty one: its missing members are named (`name: can't be blank`). */
export const CronBody = envelope('cron', CronInput).openapi('CronBody')
export const CronPatchBody = envelope('cron', CronPatch).openapi('CronPatchBody')


/** A trigger on a db's changes (docs/flows.md "Flows on db changes"): one run of the flow per matching change. */
export const DbTrigger = z.object({
  id: z.number().int(),
  kind: z.literal('flow'),
  db_id: z.number().int(),
  table_name: z.string().nullable().openapi({description: 'Only changes of records of this table; null: every table'}),
  ops: z.array(z.enum(DB_CHANGE_OPS)).openapi({description: 'The changes that start a run'}),
  target_code: z.string(),
  active: z.boolean(),
  created_by_id: z.number().int().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
}).openapi('DbTrigger')

const DB_TRIGGER_MEMBERS = ['kind', 'db_id', 'table_name', 'ops', 'target_code', 'active']
const opsError = `must be a list of ${DB_CHANGE_OPS.join(', ')}`
const dbRef = z.union([z.number().int().positive(), z.string().min(1).max(64)],
  {error: (iss) => (iss.input === undefined ? "can't be blank" : 'must be a database id or code')})
  .openapi({description: 'The database: its id or code (a database of another account is a 404)'})
const dbTriggerMembers = {
  kind: z.literal('flow', {error: 'must be flow'}).optional(),
  db_id: dbRef.optional(),
  table_name: z.string({error: 'must be a string or null'}).max(64, 'is too long (64 characters at most)').nullable()
    .transform((v) => (v === '' ? null : v)).optional(),
  ops: z.array(z.string({error: opsError}), {error: opsError}).min(1, "can't be empty")
    .refine((v) => v.every((op) => (DB_CHANGE_OPS as readonly string[]).includes(op)), opsError)
    .transform((v) => DB_CHANGE_OPS.filter((op) => v.includes(op)))
    .openapi({type: 'array', items: {type: 'string', enum: [...DB_CHANGE_OPS]}, description: 'The changes that start a run (default: all three)'}).optional(),
  target_code: targetCode.optional(),
  active: z.boolean({error: 'must be true or false'}).optional(),
}
/** A create: `db_id` and `target_code` are required; `ops` defaults to all three, `table_name` to every table. */
export const DbTriggerInput = z.looseObject({
  ...dbTriggerMembers,
  db_id: dbRef,
  target_code: targetCode,
}).superRefine(knownOnly(DB_TRIGGER_MEMBERS), always).openapi('DbTriggerInput')
export const DbTriggerPatch = z.looseObject(dbTriggerMembers).superRefine(knownOnly(DB_TRIGGER_MEMBERS), always).openapi('DbTriggerPatch')
export const DbTriggerBody = envelope('db_trigger', DbTriggerInput).openapi('DbTriggerBody')
export const DbTriggerPatchBody = envelope('db_trigger', DbTriggerPatch).openapi('DbTriggerPatchBody')

export const FlowProcess = z.object({
  id: Uuid,
  flow_id: z.number().int().nullable(),
  flow_code: z.string(),
  status: z.enum(['pending', 'finished', 'error']),
  trigger: z.enum(TRIGGERS),
  cron_id: z.number().int().nullable(),
  db_trigger_id: z.number().int().nullable().openapi({description: 'The db trigger that started the run (trigger `db_change`), else null'}),
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

export const FlowTraceStep = z.object({
  path: z.string().openapi({description: 'Where the step is in the program, 1-based', example: '3.then.1'}),
  type: z.enum(['connector', 'mutation', 'if']),
  label: z.string().openapi({example: 'weather.current → json_object'}),
  input: z.unknown().optional().openapi({description: 'Connector: method, path_params and query or body (never a header or the secret); mutation: the values set; if: the condition and its result'}),
  output: z.unknown().optional().openapi({description: 'Connector: the upstream status and the value stored into the data; if: the branch taken'}),
  error: z.string().optional().openapi({description: 'Why the step failed (the last step of a failed run)'}),
  duration_ms: z.number().int(),
  truncated: z.literal(true).optional().openapi({description: 'Input or output cut to a JSON text preview of 4 KB, or left out to keep the trace within 64 KB'}),
}).openapi('FlowTraceStep')

export const FlowTrace = z.object({
  steps: z.array(FlowTraceStep),
  omitted_steps: z.number().int().openapi({description: 'Executed steps left out because the trace reached 64 KB'}),
}).openapi('FlowTrace')

/** One run as `getFlowProcess` (and a run started by hand or by a cron) answers it: with its trace. */
export const FlowProcessDetail = FlowProcess.extend({
  trace: FlowTrace.nullable().openapi({description: 'Each executed step in order; null while pending and for runs recorded before traces existed'}),
}).openapi('FlowProcessDetail')

/** An integer query value from `min` to `max` (`limit must be an integer from 1 to 100`). */
const intQuery = (name: string, min: number, max: number) =>
  z.string().refine((v) => /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max, `${name} must be an integer from ${min} to ${max}`)
    .transform(Number).openapi({type: 'integer', minimum: min, maximum: max})
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const ProcessQuery = z.object({
  limit: intQuery('limit', 1, 100).default(20),
  offset: intQuery('offset', 0, 1_000_000_000).default(0),
  status: z.enum(PROCESS_STATUSES, badQuery('status', `one of ${PROCESS_STATUSES.join(', ')}`)).optional(),
  trigger: z.enum(TRIGGERS, badQuery('trigger', `one of ${TRIGGERS.join(', ')}`)).optional(),
  flow_code: z.string().transform((v) => v.slice(0, 64)).optional().openapi({type: 'string'}),
  cron_id: intQuery('cron_id', 1, Number.MAX_SAFE_INTEGER).optional(),
  db_trigger_id: intQuery('db_trigger_id', 1, Number.MAX_SAFE_INTEGER).optional(),
  app_id: z.string().regex(UUID_RE, 'app_id must be a UUID').optional().openapi({format: 'uuid'}),
})

export type ResourceView = z.infer<typeof Resource>
export type CronView = z.infer<typeof Cron>
export type DbTriggerView = z.infer<typeof DbTrigger>
export type DbTriggerCreate = z.output<typeof DbTriggerInput>
export type DbTriggerPatch = z.output<typeof DbTriggerPatch>
export type FlowProcessView = z.infer<typeof FlowProcess>
export type FlowProcessDetailView = z.infer<typeof FlowProcessDetail>
export type ResourceCreate = z.output<typeof ResourceInput>
export type ResourcePatch = z.output<typeof ResourcePatch>
export type CronCreate = z.output<typeof CronInput>
export type CronPatch = z.output<typeof CronPatch>
export type ProcessFilter = z.output<typeof ProcessQuery>
