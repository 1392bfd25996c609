import type {Context} from 'hono'
import {dict} from '../../../core/safe-keys.js'
import {notFound} from '../../../core/errors.js'
import {indexValues} from '../../../core/dbs/records.js'
import {planSchema, type SchemaPlan, tablePlan} from '../../../core/dbs/schema.js'
import type {DbView, Indexer} from '../../../store/dbs/types.js'
import type {AppEnv, Deps} from '../../env.js'

export interface LoadedDb {
  db: DbView
  plan: SchemaPlan
  accountId: number
}

/** Strips the `.json` suffix Hono leaves on a `:param{...\.json}` segment. */
export const stripJson = (raw: string) => (raw.endsWith('.json') ? raw.slice(0, -5) : raw)

/** A record id from the path (digits only), else 404. */
export function recordId(raw: string): number {
  const id = stripJson(raw)
  if (!/^\d{1,15}$/.test(id)) throw notFound('record not found')
  return Number(id)
}

/** The database `:id` (id or code) of the account, with its schema plan; 404 otherwise. */
export async function loadDb(deps: Deps, accountId: number, idOrCode: string, count = false): Promise<LoadedDb> {
  const key = stripJson(idOrCode)
  const db = key.length > 0 && key.length <= 64 ? await deps.store.dbs.get(accountId, key, {count}) : null
  if (!db) throw notFound('database not found')
  let plan = plans.get(db)
  if (!plan) plans.set(db, (plan = planSchema(db.schema)))
  return {db, plan, accountId}
}

/** Plans of the db views the store caches (one view object per db and cache epoch). */
const plans = new WeakMap<DbView, SchemaPlan>()

/** Computes index columns of stored records under a plan (schema changes rebuild them with it). */
export const indexerFor = (plan: SchemaPlan): Indexer => (tableName, data) => indexValues(tablePlan(plan, tableName), data)

/** The query string as a flat map (last value wins), without a prototype: `filter[__proto__]` is a key like any other. */
export function flatQuery(c: Context<AppEnv>): Record<string, string> {
  const out = dict<string>()
  for (const [k, v] of new URL(c.req.url).searchParams) out[k] = v
  return out
}
