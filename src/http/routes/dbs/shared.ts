import type {Context, MiddlewareHandler} from 'hono'
import type {Action} from '../../../core/auth/permissions.js'
import {dict} from '../../../core/safe-keys.js'
import {notFound} from '../../../core/errors.js'
import {planSchema, type SchemaPlan} from '../../../core/dbs/schema.js'
import type {DbView} from '../../../core/contract/dbs.js'
import type {DbInput} from '../../../core/dbs/db.js'
import type {AppEnv, Deps} from '../../env.js'
import {param, slot} from '../../router.js'
import {requireCan, requireUser} from '../../middleware/auth.js'

export interface LoadedDb {
  db: DbView
  plan: SchemaPlan
  accountId: number
}

/** The database of the route (`:id` or `:db_id`), loaded once by `dbLoader` for every route with a db in its path. */
export const loadedDb = slot<LoadedDb>('db')

/** A record id from the path (digits only), else 404. */
export function recordId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw notFound('record not found')
  return Number(raw)
}

/** The database `idOrCode` of the account, with its schema plan; 404 otherwise. */
export async function loadDb(deps: Deps, accountId: number, idOrCode: string, count = false): Promise<LoadedDb> {
  const db = idOrCode.length > 0 && idOrCode.length <= 64 ? await deps.store.dbs.get(accountId, idOrCode, {count}) : null
  if (!db) throw notFound('database not found')
  let plan = plans.get(db)
  if (!plan) plans.set(db, (plan = planSchema(db.schema)))
  return {db, plan, accountId}
}

/**
 * Middleware: the user (401), the permission a write needs (403, before anything is looked up),
 * then the database of `:id`/`:db_id` inside the user's account into `loadedDb` (404 for unknown or foreign).
 * `count`: with its records_count (the one answer that shows it).
 */
export function dbLoader(deps: Deps, options: {can?: Action; count?: boolean} = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const user = options.can ? requireCan(c, options.can) : requireUser(c)
    const key = c.req.param('db_id') !== undefined ? param(c, 'db_id') : param(c, 'id')
    const loaded = await loadDb(deps, user.accountId, key, options.count)
    // On an app's origin only the db the app declares, in its account (src/http/app-origin/routes.ts
    // lets only its members' routes through; checked again on the db the route actually loaded).
    const hosted = c.get('hostedApp')
    if (hosted && (hosted.account_id !== loaded.accountId || !hosted.db_code || loaded.db.code !== hosted.db_code)) throw notFound('not found')
    loadedDb.set(c, loaded)
    await next()
  }
}

/** Plans of the db views the store caches (one view object per db and cache epoch). */
const plans = new WeakMap<DbView, SchemaPlan>()


/** The query string as a flat map (last value wins), without a prototype: `filter[__proto__]` is a key like any other. */
export function flatQuery(c: Context<AppEnv>): Record<string, string> {
  const out = dict<string>()
  for (const [k, v] of new URL(c.req.url).searchParams) out[k] = v
  return out
}

/** A stored db as the input a write merges over (a PATCH keeps what it does not send). */
export const asInput = (db: DbView): DbInput => ({
  name: db.name, code: db.code, app_id: db.app_id, schema: db.schema,
  public_methods: db.public_methods as DbInput['public_methods'], fields: db.fields,
})
