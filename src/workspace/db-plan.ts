/**
 * The client side of a db change (`svc db push`, `svc push`): the plan is asked of the server
 * (`POST /svc/dbs/plan.json`, src/core/dbs/plan.ts), which diffs against the stored definition,
 * counts the data a change drops and reads the records a change leaves invalid, and the change is
 * applied with the ETag of the version planned on (If-Match).
 */
import type {Client} from '../client/backend.js'
import type {DbPlan} from '../core/dbs/plan.js'

/** The plan of writing `definition`: against the db `id` when given, else the db of its code (none: a create). */
export async function planDb(client: Client, definition: Record<string, unknown>, id?: number | string): Promise<DbPlan> {
  return await client.call('planDbChange', {body: {db: definition, ...(id === undefined ? {} : {id})}}) as DbPlan
}

/** The body a push sends for a definition: what the file says (absent `app_id` and `fields` keep the stored ones). */
export function dbWriteBody(definition: {name: string; code: string; schema?: unknown; public_methods?: unknown; app_id?: unknown; fields?: unknown}) {
  return {
    name: definition.name, code: definition.code, schema: definition.schema ?? null, public_methods: definition.public_methods ?? {},
    ...(definition.app_id !== undefined ? {app_id: definition.app_id} : {}), ...(definition.fields !== undefined ? {fields: definition.fields} : {}),
  } as Record<string, unknown>
}
