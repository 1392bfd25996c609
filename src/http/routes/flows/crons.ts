import type {MiddlewareHandler} from 'hono'
import {cronContext} from '../../../core/contract/flows.js'
import {flowRoutes as routes} from '../../../core/contract/routes.js'
import {notFound} from '../../../core/errors.js'
import {quotasOf} from '../../../core/quotas.js'
import {cronData, nextRun, type CronJob, type CronWrite} from '../../../core/flows/crons.js'
import {FLOW_KIND} from '../../../core/flows/resources.js'
import {createRouter, handle, slot} from '../../router.js'
import type {AppEnv, Deps} from '../../env.js'
import {allowedTo, requireUser, userRequired} from '../../middleware/auth.js'
import {intParam} from './helpers.js'

/** When an active cron runs next, from now; null when inactive. */
const nextAt = (write: CronWrite, now: Date) => (write.active ? nextRun(write.schedule, write.timezone, now)?.toISOString() ?? null : null)

/** The cron of `:id`, loaded once by `cronOf`. */
const loaded = slot<CronJob>('cron')

/**
 * `/account/crons`: crons of kind `flow` (reading needs a signed-in user; changing and running
 * needs permission `account`), served from the contract. The scheduler of `svc serve` starts due
 * ones; `run.json` starts one now with the same input `{kind: "cron", cron_id}`.
 */
export function cronsRoutes(deps: Deps) {
  const app = createRouter()
  const store = deps.store.flows
  const quotas = quotasOf(deps.quotas)

  const reader = userRequired
  const writer = allowedTo('cron.write')
  /** Loads the cron of `:id` of the user's account, else 404. */
  const cronOf: MiddlewareHandler<AppEnv> = async (c, next) => {
    const cron = await store.getCron(requireUser(c).accountId, intParam(c, 'id'))
    if (!cron) throw notFound()
    loaded.set(c, cron)
    await next()
  }
  /**
   * What the body's schema checks a cron against (src/core/contract/flows.ts `cronContext`): the
   * account's flows, the stored cron of a PATCH, the server's shortest interval. Set for the parse.
   */
  const rulesContext = (patch: boolean): MiddlewareHandler<AppEnv> => async (c, next) => {
    const user = requireUser(c)
    const codes = new Set((await store.listResources(user.accountId, {kind: FLOW_KIND})).map((r) => r.code))
    const existing = patch ? loaded.get(c) : undefined
    await cronContext.run({flowExists: (code) => codes.has(code), existing, minIntervalSeconds: quotas.cron_min_interval_seconds, now: new Date()}, next)
  }

  handle(app, routes.listCrons, reader, async (c) => c.json(await store.listCrons(requireUser(c).accountId)))

  handle(app, routes.getCron, cronOf, async (c) => c.json(loaded.get(c)))

  handle(app, routes.createCron, writer, rulesContext(false), async (c, {body}) => {
    const user = requireUser(c)
    const write = cronData(body.cron)
    return c.json(await store.createCron(user.accountId, user.id, write, nextAt(write, new Date()), quotas.crons_per_account), 201)
  })

  handle(app, routes.updateCron, writer, cronOf, rulesContext(true), async (c, {body}) => {
    const user = requireUser(c)
    const existing = loaded.get(c)
    const write = cronData(body.cron, existing)
    const scheduleChanged = write.schedule !== existing.schedule || write.timezone !== existing.timezone || write.active !== existing.active
    const next = scheduleChanged || !existing.next_run_at ? nextAt(write, new Date()) : existing.next_run_at
    const updated = await store.updateCron(user.accountId, existing.id, write, next)
    if (!updated) throw notFound()
    return c.json(updated)
  })

  handle(app, routes.deleteCron, writer, async (c) => {
    if (!(await store.deleteCron(requireUser(c).accountId, intParam(c, 'id')))) throw notFound()
    return c.body(null, 204)
  })

  handle(app, routes.runCron, writer, cronOf, async (c) => {
    const user = requireUser(c)
    const cron = loaded.get(c)
    const engine = deps.services.flows
    const started = await engine.start({
      accountId: user.accountId, flowCode: cron.target_code, input: {kind: 'cron', cron_id: cron.id}, trigger: 'cron', cronId: cron.id, userId: user.id, requestId: c.get('requestId'),
    })
    await store.setCronLastProcess(user.accountId, cron.id, started.process.id, new Date().toISOString())
    return c.json(await engine.settle(user.accountId, started), 201)
  })

  return app
}
