import type {MiddlewareHandler} from 'hono'
import {flowRoutes as routes} from '../../../core/contract/routes.js'
import {notFound, validation} from '../../../core/errors.js'
import {quotasOf} from '../../../core/quotas.js'
import {dbTriggerData, type DbTrigger, type DbTriggerWrite} from '../../../core/flows/db-triggers.js'
import {FLOW_KIND} from '../../../core/flows/resources.js'
import {createRouter, handle, slot} from '../../router.js'
import type {AppEnv, Deps} from '../../env.js'
import {allowedTo, requireUser, userRequired} from '../../middleware/auth.js'
import {loadDb} from '../dbs/shared.js'
import {intParam} from './helpers.js'

/** The db trigger of `:id`, loaded once by `triggerOf`. */
const loaded = slot<DbTrigger>('db_trigger')

/**
 * `/account/db_triggers`: flows on db changes (docs/flows.md "Flows on db changes"). Reading needs a
 * signed-in user; changing needs what crons need (`cron.write`: a trigger sends the account's data to a
 * flow and on through its connectors). The db is one of the account's (by id or code; another account's
 * is a 404, as everywhere); the flow must exist when the trigger is written. The change service of
 * `svc serve` (src/services/flows/change-triggers.ts) starts the runs.
 */
export function dbTriggersRoutes(deps: Deps) {
  const app = createRouter()
  const store = deps.store.flows
  const quotas = quotasOf(deps.quotas)
  const writer = allowedTo('cron.write')

  const triggerOf: MiddlewareHandler<AppEnv> = async (c, next) => {
    const trigger = await store.getDbTrigger(requireUser(c).accountId, intParam(c, 'id'))
    if (!trigger) throw notFound()
    loaded.set(c, trigger)
    await next()
  }

  /** The db (404 when it is not the account's) and the flow (422 when the account has none of that code). */
  const checked = async (accountId: number, dbRef: string | number, write: Omit<DbTriggerWrite, 'db_id'>): Promise<DbTriggerWrite> => {
    const {db, plan} = await loadDb(deps, accountId, String(dbRef))
    const fields: Record<string, string[]> = {}
    // A multi-table db names its tables: a trigger on another would never run.
    if (write.table_name !== null && plan.multi && !plan.tables.has(write.table_name)) fields.table_name = [`is not a table of this db (${[...plan.tables.keys()].join(', ')})`]
    if (!(await store.findResource(accountId, FLOW_KIND, write.target_code))) fields.target_code = ['names no flow (svc/custom_flow) of this account']
    if (Object.keys(fields).length) throw validation(fields)
    return {...write, db_id: db.id}
  }

  handle(app, routes.listDbTriggers, userRequired, async (c) => c.json(await store.listDbTriggers(requireUser(c).accountId)))

  handle(app, routes.getDbTrigger, triggerOf, async (c) => c.json(loaded.get(c)))

  handle(app, routes.createDbTrigger, writer, async (c, {body}) => {
    const user = requireUser(c)
    const input = body.db_trigger
    const write = await checked(user.accountId, input.db_id, dbTriggerData(input, 0))
    return c.json(await store.createDbTrigger(user.accountId, user.id, write, quotas.crons_per_account), 201)
  })

  handle(app, routes.updateDbTrigger, writer, triggerOf, async (c, {body}) => {
    const user = requireUser(c)
    const existing = loaded.get(c)
    const input = body.db_trigger
    const write = await checked(user.accountId, input.db_id ?? existing.db_id, dbTriggerData(input, existing.db_id, existing))
    const updated = await store.updateDbTrigger(user.accountId, existing.id, write)
    if (!updated) throw notFound()
    return c.json(updated)
  })

  handle(app, routes.deleteDbTrigger, writer, async (c) => {
    if (!(await store.deleteDbTrigger(requireUser(c).accountId, intParam(c, 'id')))) throw notFound()
    return c.body(null, 204)
  })

  return app
}
