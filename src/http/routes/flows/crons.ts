import {Hono} from 'hono'
import {notFound, validation} from '../../../core/errors.js'
import {quotasOf} from '../../../core/quotas.js'
import {nextRun, validateCron, type CronWrite} from '../../../core/flows/crons.js'
import {FLOW_KIND} from '../../../core/flows/resources.js'
import type {AppEnv, Deps} from '../../env.js'
import {requireCan, requireUser} from '../../middleware/auth.js'
import {envelope, jsonObject} from '../../middleware/body.js'
import {flowEngine} from './engine.js'
import {intParam} from './helpers.js'

/** When an active cron runs next, from now; null when inactive. */
const nextAt = (write: CronWrite, now: Date) => (write.active ? nextRun(write.schedule, write.timezone, now)?.toISOString() ?? null : null)

/**
 * `/account/crons`: crons of kind `flow` (reading needs a signed-in user; changing and running
 * needs permission `account`). The scheduler of `svc serve` starts due ones; `run.json` starts
 * one now with the same input `{kind: "cron", cron_id}`.
 */
export function cronsRoutes(deps: Deps) {
  const app = new Hono<AppEnv>()
  const store = deps.store.flows
  const quotas = quotasOf(deps.quotas)

  const flowCodes = async (accountId: number) => new Set((await store.listResources(accountId, {kind: FLOW_KIND})).map((r) => r.code))

  app.get('/account/crons.json', async (c) => {
    const user = requireUser(c)
    return c.json(await store.listCrons(user.accountId))
  })

  app.get('/account/crons/:id{[0-9]+\\.json}', async (c) => {
    const user = requireUser(c)
    const cron = await store.getCron(user.accountId, intParam(c, 'id'))
    if (!cron) throw notFound()
    return c.json(cron)
  })

  app.post('/account/crons.json', async (c) => {
    const user = requireCan(c, 'cron.write')
    const raw = envelope(await jsonObject(c), 'cron')
    const codes = await flowCodes(user.accountId)
    const now = new Date()
    const write = validateCron(raw, (code) => codes.has(code), now, undefined, quotas.cron_min_interval_seconds)
    if ((await store.listCrons(user.accountId)).length >= quotas.crons_per_account) {
      throw validation({cron: [`an account has at most ${quotas.crons_per_account} crons`]})
    }
    return c.json(await store.createCron(user.accountId, user.id, write, nextAt(write, now)), 201)
  })

  app.patch('/account/crons/:id{[0-9]+\\.json}', async (c) => {
    const user = requireCan(c, 'cron.write')
    const id = intParam(c, 'id')
    const raw = envelope(await jsonObject(c), 'cron')
    const existing = await store.getCron(user.accountId, id)
    if (!existing) throw notFound()
    const codes = await flowCodes(user.accountId)
    const now = new Date()
    const write = validateCron(raw, (code) => codes.has(code), now, existing, quotas.cron_min_interval_seconds)
    const scheduleChanged = write.schedule !== existing.schedule || write.timezone !== existing.timezone || write.active !== existing.active
    const next = scheduleChanged || !existing.next_run_at ? nextAt(write, now) : existing.next_run_at
    const updated = await store.updateCron(user.accountId, id, write, next)
    if (!updated) throw notFound()
    return c.json(updated)
  })

  app.delete('/account/crons/:id{[0-9]+\\.json}', async (c) => {
    const user = requireCan(c, 'cron.write')
    if (!(await store.deleteCron(user.accountId, intParam(c, 'id')))) throw notFound()
    return c.body(null, 204)
  })

  app.post('/account/crons/:id{[0-9]+}/run.json', async (c) => {
    const user = requireCan(c, 'cron.write')
    const cron = await store.getCron(user.accountId, intParam(c, 'id'))
    if (!cron) throw notFound()
    const engine = flowEngine(deps)
    const started = await engine.start({
      accountId: user.accountId, flowCode: cron.target_code, input: {kind: 'cron', cron_id: cron.id}, trigger: 'cron', cronId: cron.id, userId: user.id,
    })
    await store.setCronLastProcess(user.accountId, cron.id, started.process.id, new Date().toISOString())
    return c.json(await engine.settle(user.accountId, started), 201)
  })

  return app
}
