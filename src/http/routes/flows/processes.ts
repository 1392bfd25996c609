import type {MiddlewareHandler} from 'hono'
import {flowRoutes as routes} from '../../../core/contract/routes.js'
import {notFound} from '../../../core/errors.js'
import type {FlowProcess} from '../../../core/flows/processes.js'
import {createRouter, handle, slot} from '../../router.js'
import type {AppEnv, Deps} from '../../env.js'
import {requireUser, userRequired} from '../../middleware/auth.js'
import {uuidParam} from './helpers.js'

/** The run of `:id`, loaded once by `processOf`. */
const loaded = slot<FlowProcess>('flowProcess')

/**
 * `/connect/flow_processes`: runs of the account's flows, newest first, with status, input,
 * output, error and timings (the list query checked by ProcessQuery of src/core/contract/flows.ts).
 * A run left pending by a process that died is shown as `error`.
 */
export function processesRoutes(deps: Deps) {
  const app = createRouter()

  const reader = userRequired
  /** Loads the run of `:id` of the user's account (reaped first if its process died), else 404. */
  const processOf: MiddlewareHandler<AppEnv> = async (c, next) => {
    const user = requireUser(c)
    const id = uuidParam(c, 'id')
    let process = await deps.store.flows.getProcess(user.accountId, id)
    if (!process) throw notFound()
    if (process.status === 'pending' && (await deps.services.flows.reapOrphans(user.accountId)) > 0) {
      process = (await deps.store.flows.getProcess(user.accountId, id)) ?? process
    }
    loaded.set(c, process)
    await next()
  }

  handle(app, routes.listFlowProcesses, reader, async (c, {query}) => {
    const user = requireUser(c)
    await deps.services.flows.reapOrphans(user.accountId)
    return c.json(await deps.store.flows.listProcesses(user.accountId, query))
  })

  handle(app, routes.getFlowProcess, processOf, async (c) => c.json(loaded.get(c)))

  return app
}
