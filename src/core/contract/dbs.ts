/**
 * Database and record shapes (decisions.md "Ids and shapes", platform-api.md "Databases"): the API
 * objects, and the write bodies with every rule of a db definition a schema can say (the field
 * types, tables and index columns of `schema`, the options of `public_methods`, name, code, app_id),
 * with the messages the API has always answered. What only code can say stays in core/dbs: a
 * record against its db's own schema (records.ts), the table of a write, query parameters (query.ts).
 */
import {AUTO_VARIABLES, autoVariables, PUBLIC_METHODS, scopeTemplate, SEARCH_PARAMS, SUBSCRIBE_PARAMS, type PublicMethods as MethodsConfig} from '../dbs/public-methods.js'
import {columnFamily, FIELD_NAME, FIELD_TYPES, INDEX_COLUMNS, isFieldName, RESERVED_HINT, TABLE_NAME, type FieldType, type IndexColumn} from '../dbs/schema.js'
import {isReservedName, shown} from '../safe-keys.js'
import {JsonObject, z, Timestamp, Uuid, envelope} from './common.js'

export const PUBLIC_METHOD_NAMES = PUBLIC_METHODS

type Ctx = z.core.$RefinementCtx
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const short = (name: string) => name.slice(0, 80)
const isType = (v: unknown): v is FieldType => typeof v === 'string' && (FIELD_TYPES as readonly string[]).includes(v)
/** An error fn for a schema: `message` for a value of the wrong kind, the shared wording for the rest. */
const wrongKind = (message: string) => ({error: (issue: {code: string}) => (issue.code === 'invalid_type' ? message : undefined)})

/**
 * A map keyed by the user's names (field or table names): `check` runs on the raw keys, before zod
 * strips `__proto__` from the output, so a reserved or malformed name is a 422 and never a key.
 * Bad names are reported (`check` returns false to drop the entry) and left out of the inner parse.
 */
function nameMap<S extends z.ZodType>(value: S, notObject: string, check: (name: string, ctx: Ctx) => boolean) {
  return z.preprocess((raw, ctx) => {
    if (!isObject(raw)) return raw
    const kept: Record<string, unknown> = {}
    for (const name of Object.keys(raw)) if (check(name, ctx as unknown as Ctx)) Object.defineProperty(kept, name, {value: raw[name], enumerable: true, writable: true, configurable: true})
    return kept
  }, z.record(z.string(), value, wrongKind(notObject)))
}

/** `name` as a field name, else an issue at the map (`has an invalid field name "x"`) and false. */
const fieldNameIn = (hint: string) => (name: string, ctx: Ctx) => {
  if (isFieldName(name)) return true
  ctx.addIssue({code: 'custom', message: `has an invalid field name "${short(name)}"${hint}`, input: name})
  return false
}

// ------------------------------------------------------------------------------ schema (field types)
const UNKNOWN_TYPE = `has an unknown type; use one of ${FIELD_TYPES.join(', ')}`

/** A field: a type name, or `{type, required}`. */
const FieldDef = z.union([
  z.string().refine(isType, UNKNOWN_TYPE),
  z.looseObject({type: z.unknown(), required: z.unknown().optional()}).superRefine((def, ctx) => {
    const extra = Object.keys(def).filter((k) => k !== 'type' && k !== 'required')
    if (extra.length) ctx.addIssue({code: 'custom', message: `has unknown keys: ${extra.join(', ')}`, input: def})
    if (!isType(def.type)) ctx.addIssue({code: 'custom', message: UNKNOWN_TYPE, input: def})
    else if (def.required !== undefined && typeof def.required !== 'boolean') ctx.addIssue({code: 'custom', message: 'required must be true or false', input: def})
  }),
], {error: 'must be a type name or {type, required}'}).openapi({description: `A type (${FIELD_TYPES.join(', ')}) or {type, required}`})

/** Field names: letters, digits, `_` and `-`, starting with a letter or `_`; reserved names are refused under their own key. */
const Fields = nameMap(FieldDef, 'must be an object mapping field names to types', (name, ctx) => {
  if (!FIELD_NAME.test(name)) {
    ctx.addIssue({code: 'custom', message: `has an invalid field name "${short(name)}" (letters, digits, _ and -, starting with a letter or _)`, input: name})
    return false
  }
  if (isReservedName(name)) {
    ctx.addIssue({code: 'custom', message: `${RESERVED_HINT}: choose another field name`, input: name, path: [name]})
    return false
  }
  return true
})

const Indexes = nameMap(z.enum(INDEX_COLUMNS), 'must be an object mapping field names to index columns', fieldNameIn(''))
const IndexedFields = z.array(z.unknown(), wrongKind('must be an array of field names')).superRefine((names, ctx) => {
  for (const name of names) if (!isFieldName(name)) ctx.addIssue({code: 'custom', message: `has an invalid field name "${short(shown(name))}"`, input: name})
})

const tableMembers = {fields: Fields.nullish(), indexes: Indexes.nullish(), indexed_fields: IndexedFields.nullish()}

/** Index columns against the fields of one table: a column used once, of the field's family; indexed_fields name fields. */
function checkIndexes(table: {fields?: Record<string, unknown> | null; indexes?: Record<string, IndexColumn> | null; indexed_fields?: unknown[] | null}, ctx: Ctx, at: PropertyKey[]) {
  const fields = table.fields ?? {}
  const typeOf = (field: string): FieldType | undefined => {
    if (!Object.hasOwn(fields, field)) return undefined
    const def = fields[field]
    return (typeof def === 'string' ? def : (def as {type: FieldType}).type) as FieldType
  }
  const used = new Set<IndexColumn>()
  for (const [field, column] of Object.entries(table.indexes ?? {})) {
    const type = typeOf(field)
    if (used.has(column)) ctx.addIssue({code: 'custom', message: `${column} is already used by another field`, path: [...at, 'indexes', field], input: column})
    else if (type && !columnFamily(type).includes(column)) ctx.addIssue({code: 'custom', message: `${column} does not fit a ${type} field`, path: [...at, 'indexes', field], input: column})
    else used.add(column)
  }
  for (const field of table.indexed_fields ?? []) {
    if (typeof field !== 'string' || !isFieldName(field) || Object.hasOwn(table.indexes ?? {}, field)) continue
    if (!typeOf(field)) ctx.addIssue({code: 'custom', message: `names "${field}", which is not a field of the schema`, path: [...at, 'indexed_fields'], input: field})
  }
}

const Table = z.strictObject(tableMembers, wrongKind('must be an object {fields, indexed_fields}'))
  .superRefine((table, ctx) => checkIndexes(table, ctx, []))

const Tables = nameMap(Table, 'must be an object mapping table names to {fields, indexed_fields}', (name, ctx) => {
  if (TABLE_NAME.test(name) && !isReservedName(name)) return true
  ctx.addIssue({code: 'custom', message: `has an invalid table name "${short(name)}"`, input: name})
  return false
}).refine((tables) => Object.keys(tables).length > 0, 'must name at least one table')

/**
 * The `schema` of a database: `fields` (name → type or {type, required}) with `indexes` and/or
 * `indexed_fields`, or `tables` (name → {fields, indexes, indexed_fields}), not both.
 * `{}` is a free-form database (stored as null).
 */
export const DbSchema = z.strictObject({...tableMembers, tables: Tables.nullish()}, wrongKind('must be an object'))
  .superRefine((schema, ctx) => {
    const tables = schema.tables
    if (tables !== undefined && tables !== null) {
      if (schema.fields !== undefined || schema.indexes !== undefined || schema.indexed_fields !== undefined) {
        ctx.addIssue({code: 'custom', message: 'uses either tables or top-level fields, not both', input: schema})
      }
    } else checkIndexes(schema, ctx, [])
  })
  .openapi('DbSchema', {description: 'Field types (or tables of field types) and index columns; null = free-form records'})

// --------------------------------------------------------------------------- public_methods
const NAMES = 'must be an array of field names'
const names = z.array(z.unknown(), wrongKind(NAMES)).refine((list) => list.every(isFieldName), NAMES)
const AUTO = AUTO_VARIABLES.map((v) => `{${v}}`)
const autoTemplate = z.unknown().refine((t) => typeof t === 'string' && autoVariables(t).length > 0
  && autoVariables(t).every((v) => (AUTO_VARIABLES as readonly string[]).includes(v)), `must be a string using ${AUTO.slice(0, -1).join(', ')} or ${AUTO.at(-1)}`)

export const MethodOptions = z.strictObject({
  allowed_fields: names.optional(),
  required_fields: names.optional(),
  default_values: nameMap(z.unknown(), 'must be an object', (name, ctx) => {
    if (isFieldName(name)) return true
    ctx.addIssue({code: 'custom', message: 'must map field names to values', input: name})
    return false
  }).optional(),
  auto_fields: nameMap(autoTemplate, `must be an object mapping field names to ${AUTO.slice(0, -1).join(', ')} or ${AUTO.at(-1)}`, fieldNameIn('')).optional()
    .openapi({description: 'field → `{ip}`, `{cookie_key}`, `{user_id}` or `{user_name}`'}),
  allowed_params: z.array(z.unknown(), wrongKind(`must be an array of ${SEARCH_PARAMS.join(', ')}`))
    .refine((list) => list.every((p) => (SEARCH_PARAMS as readonly unknown[]).includes(p)), `must be an array of ${SEARCH_PARAMS.join(', ')}`).optional(),
  scope_by: z.unknown().refine(isFieldName, 'must be a field name').optional(),
}, {error: (issue) => issue.code === 'unrecognized_keys' ? `has unknown options: ${(issue as {keys: string[]}).keys.join(', ')}` : issue.code === 'invalid_type' ? 'must be true, false or an options object' : undefined})
  .openapi('PublicMethodOptions')

const method = z.union([z.boolean(), MethodOptions], {error: 'must be true, false or an options object'})
const unknownMethod = (keys: string[]) => `has an unknown method ${keys.map((k) => `"${k.slice(0, 40)}"`).join(', ')}; use ${PUBLIC_METHODS.join(', ')}`

/** `public_methods`: method → true, false (disabled) or options; `scope_by` needs an auto_fields entry (this method's or another's). */
export const PublicMethods = z.strictObject(
  Object.fromEntries(PUBLIC_METHODS.map((m) => [m, method.optional()])) as {[M in (typeof PUBLIC_METHODS)[number]]: z.ZodOptional<typeof method>},
  {error: (issue) => issue.code === 'unrecognized_keys' ? unknownMethod((issue as {keys: string[]}).keys)
    : issue.code === 'invalid_type' ? 'must be an object mapping method names to true or options' : undefined},
).superRefine((config, ctx) => {
  // A live feed takes only the table to follow (`q`, `sort` or a page mean nothing to a stream).
  const sub = config.subscribe
  if (typeof sub === 'object' && Array.isArray(sub.allowed_params) && !sub.allowed_params.every((p) => (SUBSCRIBE_PARAMS as readonly unknown[]).includes(p))) {
    ctx.addIssue({code: 'custom', message: `must be an array of ${SUBSCRIBE_PARAMS.join(', ')} (the one parameter of subscribe)`, path: ['subscribe', 'allowed_params'], input: sub.allowed_params})
  }
  for (const m of PUBLIC_METHODS) {
    const options = config[m]
    if (typeof options !== 'object' || typeof options.scope_by !== 'string') continue
    if (!scopeTemplate(config as MethodsConfig, m, options.scope_by)) {
      ctx.addIssue({code: 'custom', message: `needs an auto_fields entry for "${options.scope_by}" (in this method or in create)`, path: [m, 'scope_by'], input: options.scope_by})
    }
  }
}).openapi('PublicMethods', {description: `Keys: ${PUBLIC_METHODS.join(', ')}; true, false or options`})

// ------------------------------------------------------------------------------------ databases
export const Db = z.object({
  id: z.number().int(),
  name: z.string(),
  code: z.string().nullable(),
  app_id: Uuid.nullable(),
  schema: JsonObject.nullable().openapi({description: 'Field types (or tables of field types); null = free-form records'}),
  public_methods: JsonObject,
  fields: JsonObject,
  records_count: z.number().int().openapi({description: '-1 when not counted (lists)'}),
  created_at: Timestamp,
  updated_at: Timestamp,
}).openapi('Db')

export const DB_NAME_MAX = 200
export const DB_CODE_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/i
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const BLANK = "can't be blank"
const CODE = 'must be 1-64 letters, digits, _ or -, starting with a letter or digit'
const UUID = 'must be a UUID'
const empty = (v: string | null) => v === null || v === ''

/** A name: not blank, at most 200 characters; stored trimmed. */
const name = z.string({error: BLANK})
  .refine((v) => v.trim() !== '', BLANK)
  .refine((v) => v.trim() === '' || v.length <= DB_NAME_MAX, `is too long (max ${DB_NAME_MAX} characters)`)
  .transform((v) => v.trim())
/** A code names the db in URLs next to its id: never only digits. `null` or `''` clears it. */
const code = z.string({error: CODE}).nullable()
  .refine((v) => empty(v) || DB_CODE_RE.test(v!), CODE)
  .refine((v) => empty(v) || !/^\d+$/.test(v!), 'must not be only digits (it would read as an id)')
  .transform((v) => (empty(v) ? null : v))
  .openapi({pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'})
const appId = z.string({error: UUID}).nullable()
  .refine((v) => empty(v) || UUID_RE.test(v!), UUID)
  .transform((v) => (empty(v) ? null : v!.toLowerCase()))
  .openapi({format: 'uuid'})
/** `{}` is a free-form database, as null is. */
const schema = DbSchema.nullable().transform((v) => (v && Object.keys(v).length ? (v as Record<string, unknown>) : null))
const publicMethods = PublicMethods.nullable().transform((v) => (v ?? {}) as MethodsConfig)
const fields = JsonObject.nullable().transform((v) => v ?? {}).openapi({description: 'Free-form settings of the database'})

/** The members of a database a create takes (others, such as `id` or `records_count`, are ignored: a GET answer can be sent back). */
export const DbInput = z.object({
  name,
  code: code.optional(),
  app_id: appId.optional(),
  schema: schema.optional(),
  public_methods: publicMethods.optional(),
  fields: fields.optional(),
}).openapi('DbInput')

/** A PATCH: any member of a create; what is absent keeps its value. */
export const DbPatch = DbInput.partial().openapi('DbPatch')

/** An absent envelope is an empty one: its missing members are named (`name: can't be blank`). */
export const DbBody = envelope('db', DbInput).openapi('DbBody')
export const DbPatchBody = envelope('db', DbPatch).openapi('DbPatchBody')

/**
 * `POST /svc/dbs/plan.json`: the definition a push proposes (checked as a create, or as a PATCH of
 * the db it is planned against), and that db: `id` (id or code; null: none, a create), else the db of `db.code`, else none.
 */
export const DbPlanBody = z.object({
  id: z.union([z.number().int(), z.string().max(64)], {error: 'must be a database id or code'}).nullable().optional()
    .openapi({description: 'The db to plan against (id or code); null: a new db; absent: the db whose code is db.code, if any'}),
  db: JsonObject.openapi({description: 'The proposed definition: name, code, schema, public_methods, fields, app_id (DbInput)'}),
}, {error: 'must be an object {db: {...}}'}).openapi('DbPlanBody')

const PlannedChange = z.looseObject({kind: z.string(), text: z.string().openapi({description: 'The line `svc db push` prints (`- field message (text)`)'})})
  .openapi('DbPlannedChange')
export const DbPlan = z.object({
  db_id: z.number().int().nullable().openapi({description: 'The db planned against; null: the definition creates one'}),
  etag: z.string().nullable().openapi({description: 'That db\'s version: send it as If-Match when applying'}),
  create: z.boolean(),
  changes: z.array(PlannedChange),
  data_loss: z.array(z.object({change: PlannedChange, records: z.number().int(), text: z.string()}))
    .openapi({description: 'Changes that drop a field or table holding data, with the records that hold it'}),
  invalid_records: z.object({
    count: z.number().int(),
    first: z.array(z.object({id: z.number().int(), table_name: z.string().nullable(), field: z.string(), message: z.string(), text: z.string()})),
  }).openapi({description: 'Stored records the new schema would reject: how many, and the first failing fields'}),
}).openapi('DbPlan')

export const REPLACEABLE = ['fields', 'schema', 'public_methods'] as const
const replaceString = (message: string) => z.string({error: message})
/** `PATCH /svc/dbs/:id/replace.json`: an edit of the JSON text of one member (decisions.md "Replace endpoints"). */
export const DbReplaceBody = z.object({
  field: z.enum(REPLACEABLE, {error: `must be one of ${REPLACEABLE.join(', ')}`}),
  old_string: replaceString(BLANK).min(1, BLANK).optional(),
  new_string: replaceString('is required (a string, may be empty)').optional(),
  old: replaceString(BLANK).min(1, BLANK).optional().openapi({description: 'Short name of old_string'}),
  new: replaceString('is required (a string, may be empty)').optional().openapi({description: 'Short name of new_string'}),
  replace_all: z.boolean().optional(),
}).superRefine((body, ctx) => {
  if (body.old_string === undefined && body.old === undefined) ctx.addIssue({code: 'custom', message: BLANK, path: ['old_string'], input: undefined})
  if (body.new_string === undefined && body.new === undefined) ctx.addIssue({code: 'custom', message: 'is required (a string, may be empty)', path: ['new_string'], input: undefined})
}).transform((body) => ({field: body.field, oldString: (body.old_string ?? body.old)!, newString: (body.new_string ?? body.new)!, replaceAll: body.replace_all === true}))
  .openapi('DbReplaceBody')

export const DbUsage = z.object({
  id: z.number().int(),
  records_count: z.number().int(),
  tables: z.array(z.object({
    table_name: z.string().nullable(),
    records_count: z.number().int(),
    fields: z.record(z.string(), z.number().int()),
  })),
}).openapi('DbUsage')

/** `fields=false`: the record counts only, without the per-field count (which reads every record). */
export const UsageQuery = z.object({
  fields: z.enum(['true', 'false'], {error: () => 'fields must be true or false'}).transform((v) => v === 'true').optional()
    .openapi({description: 'false: record counts per table only (no per-field count, which reads every record of the db)'}),
})

// -------------------------------------------------------------------------------------- records
export const Record_ = z.object({
  id: z.number().int(),
  table_name: z.string().nullable(),
  data: JsonObject,
  created_at: Timestamp,
  updated_at: Timestamp,
}).openapi('Record')

/** A record as public methods show it (no table name). */
export const PublicRecord = z.object({
  id: z.number().int(),
  data: JsonObject,
  created_at: Timestamp,
  updated_at: Timestamp,
}).openapi('PublicRecord')

/** Search answers are flat: the user's fields at the top level, then id, created_at, updated_at. */
export const FlatRecord = z.looseObject({id: z.number().int(), created_at: Timestamp, updated_at: Timestamp}).openapi('FlatRecord')

/**
 * The data of a record: an object (the db's own schema checks it in core/dbs/records.ts: field
 * types are the user's). Its keys are the user's: kept in a prototype-less object, `__proto__` included.
 */
const data = (required: boolean) => z.custom<Record<string, unknown>>(isObject, {
  error: (issue) => (issue.input === undefined && required ? 'is required' : 'must be an object'),
}).transform((v) => Object.assign(Object.create(null) as Record<string, unknown>, v)).openapi({type: 'object', additionalProperties: true})
const tableName = z.string().nullable().optional().openapi({description: 'Table of a multi-table database'})

/** A record to create: `data` is required. */
export const RecordInput = z.object({table_name: tableName, data: data(true)}).openapi('RecordInput')
/** A record PATCH: `data` is merged over the stored data; no `table_name` means the null table of a multi-table db. */
export const RecordPatch = z.object({table_name: tableName, data: data(false).optional()}).openapi('RecordPatch')

/** An absent envelope is an empty one: its missing members are named (`name: can't be blank`). */
export const RecordBody = envelope('record', RecordInput).openapi('RecordBody')
export const RecordPatchBody = envelope('record', RecordPatch).openapi('RecordPatchBody')

export const IMPORT_BATCH_MAX = 1000
const records = '"records" must be an array'
/** `svc db import`: up to 1000 records, all or nothing. */
export const ImportBody = z.object({
  records: z.array(RecordInput, {error: records}).max(IMPORT_BATCH_MAX, `at most ${IMPORT_BATCH_MAX} records per request`).optional(),
}).openapi('ImportBody')
export const ImportQuery = z.object({dry_run: z.string().optional().openapi({description: '`1`: check only, write nothing (200 `{imported: 0, valid}`)'})})
export const ImportResult = z.object({imported: z.number().int(), valid: z.number().int().optional().openapi({description: 'dry_run: records that would be written'})})

/** Paging and sorting: the values are checked against the db (field names, bounds) by core/dbs/query.ts, as a 422 naming the parameter. */
/** A query value the API reads as an integer: text on the wire (checked by core as a 422), an integer in the document, so generated clients take `limit: 5`. */
const intParam = (description: string, minimum: number, maximum?: number) =>
  z.string().optional().openapi({type: 'integer', description, minimum, ...(maximum === undefined ? {} : {maximum})})
const common = {
  limit: intParam('1-100 (default 20)', 1, 100),
  offset: intParam('Records to skip (default 0)', 0),
  after_id: intParam('Keyset paging: records with a greater id', 0),
  sort: z.string().optional().openapi({description: 'Field names, `-` prefix for descending (`-created_at,name`)'}),
  table_name: z.string().optional(),
}
export const RecordsQuery = z.object(common)
export const SearchQuery = z.looseObject({
  ...common,
  q: z.string().optional().openapi({description: 'Full-text query'}),
  search_in: z.string().optional().openapi({description: 'Comma-separated fields q looks in'}),
  fields: z.string().optional().openapi({description: 'Comma-separated fields to answer'}),
  // Read by the route from the `filter[<field>]` keys (core/dbs/query.ts filtersFromQuery); described
  // here for generators (openapi-fetch sends `{filter: {city: 'Berlin'}}` as `filter[city]=Berlin`).
  filter: z.unknown().optional().openapi({
    type: 'object', additionalProperties: {type: 'string'},
    description: 'Exact match per field: `filter[city]=Berlin`; `*` or `%` in a value make a pattern (`filter[name]=Ann*`)',
    param: {style: 'deepObject', explode: true},
  }),
}).openapi({description: 'Other parameters filter on fields: `filter[name]=x`, ...'})

// -------------------------------------------------------------------------------- public methods
const scalar = z.union([z.string(), z.number(), z.boolean()], {error: 'must be a string or a number'})
const callMembers = {
  id: scalar.optional().openapi({description: 'get, update, delete'}),
  q: scalar.optional(),
  limit: scalar.optional(),
  offset: scalar.optional(),
  sort: scalar.optional(),
  table_name: scalar.optional(),
}
/** Parameters of a public call in the query string (`data` as JSON, or `data[field]=` keys). */
export const PublicCallQuery = z.looseObject({
  ...callMembers,
  data: z.string().optional().openapi({description: 'create, update: the record as JSON (or `data[field]=` keys)'}),
})
/** Parameters of a public call in a JSON body (over those of the query string). A bad one is a 422 `{error, fields}`. */
export const PublicCallBody = z.looseObject({
  ...callMembers,
  data: data(false).optional().openapi({description: 'create, update: the record (required there: without it, a 422 naming the other keys sent)'}),
}).openapi('PublicCallParams')
export const PublicDeleted = z.object({id: z.number().int(), deleted: z.literal(true)})

export type DbView = z.infer<typeof Db>
export type RecordView = z.infer<typeof Record_>
export type TableUsage = z.infer<typeof DbUsage>['tables'][number]
/** The checked body of a create and of a PATCH (null and `''` already read as "none"). */
export type DbCreate = z.output<typeof DbInput>
export type DbChange = z.output<typeof DbPatch>
export type DbReplace = z.output<typeof DbReplaceBody>
export type RecordCreate = z.output<typeof RecordInput>
export type RecordChange = z.output<typeof RecordPatch>
export type PublicCall = z.output<typeof PublicCallBody>
export type MethodOptionsInput = z.output<typeof MethodOptions>
/** What a client sends (the server checks it: a user's file or argument is passed on as given). */
export type DbSend = z.input<typeof DbInput>
export type RecordSend = z.input<typeof RecordInput>
