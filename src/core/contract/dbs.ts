/** Database and record shapes (decisions.md "Ids and shapes", platform-api.md "Databases"). */
import {JsonObject, z, Timestamp, Uuid} from './common.js'

export const PUBLIC_METHOD_NAMES = ['list', 'get', 'create', 'update', 'delete', 'search'] as const

export const MethodOptions = z.object({
  allowed_fields: z.array(z.string()).optional(),
  required_fields: z.array(z.string()).optional(),
  default_values: JsonObject.optional(),
  auto_fields: z.record(z.string(), z.string()).optional().openapi({description: 'field → `{ip}`, `{cookie_key}`, `{user_id}` or `{user_name}`'}),
  allowed_params: z.array(z.string()).optional(),
  scope_by: z.string().optional(),
}).openapi('PublicMethodOptions')

export const PublicMethods = z.record(z.string(), z.union([z.literal(true), MethodOptions]))
  .openapi('PublicMethods', {description: `Keys: ${PUBLIC_METHOD_NAMES.join(', ')}; true or options`})

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

/** Writable members; the schema and public methods are checked by core/dbs (db.ts, schema.ts, public-methods.ts). */
export const DbInput = z.looseObject({
  name: z.string().optional(),
  code: z.string().nullable().optional(),
  app_id: z.string().nullable().optional(),
  schema: JsonObject.nullable().optional(),
  public_methods: PublicMethods.optional(),
  fields: JsonObject.optional(),
}).openapi('DbInput')

export const DbBody = z.object({db: DbInput.optional()})

export const DbUsage = z.object({
  id: z.number().int(),
  records_count: z.number().int(),
  tables: z.array(z.object({
    table_name: z.string().nullable(),
    records_count: z.number().int(),
    fields: z.record(z.string(), z.number().int()),
  })),
}).openapi('DbUsage')

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

/** The data is checked against the db's own schema by core/dbs/records.ts (user-defined field types). */
export const RecordInput = z.looseObject({
  table_name: z.string().nullable().optional(),
  data: JsonObject.optional(),
}).openapi('RecordInput')

export const RecordBody = z.object({record: RecordInput.optional()})
export const ImportBody = z.object({records: z.array(RecordInput).max(1000)}).openapi('ImportBody')
export const ImportResult = z.object({imported: z.number().int(), valid: z.number().int().optional().openapi({description: 'dry_run: records that would be written'})})

const common = {
  limit: z.string().optional().openapi({description: '1-100 (default 20)', pattern: '^[0-9]+$'}),
  offset: z.string().optional().openapi({pattern: '^[0-9]+$'}),
  after_id: z.string().optional().openapi({description: 'Keyset paging: records with a greater id', pattern: '^[0-9]+$'}),
  sort: z.string().optional().openapi({description: 'Field names, `-` prefix for descending (`-created_at,name`)'}),
  table_name: z.string().optional(),
}
export const RecordsQuery = z.object(common)
export const SearchQuery = z.looseObject({
  ...common,
  q: z.string().optional().openapi({description: 'Full-text query'}),
  search_in: z.string().optional().openapi({description: 'Comma-separated fields q looks in'}),
  fields: z.string().optional().openapi({description: 'Comma-separated fields to answer'}),
}).openapi({description: 'Other parameters filter on fields: `name=x`, `price[gte]=10`, ...'})

export const PublicCallParams = z.looseObject({
  id: z.union([z.string(), z.number()]).optional().openapi({description: 'get, update, delete'}),
  data: z.union([JsonObject, z.string()]).optional().openapi({description: 'create, update: the record (or `data[field]=` query keys)'}),
  q: z.string().optional(),
  limit: z.string().optional(),
  offset: z.string().optional(),
  sort: z.string().optional(),
  table_name: z.string().optional(),
})

export const PublicDeleted = z.object({id: z.number().int(), deleted: z.literal(true)})

export type DbView = z.infer<typeof Db>
export type RecordView = z.infer<typeof Record_>
export type TableUsage = z.infer<typeof DbUsage>['tables'][number]
