import {Hono} from 'hono'
import {notFound} from '../../../core/errors.js'
import {parseProcessFilter} from '../../../core/flows/processes.js'
import type {AppEnv, Deps} from '../../env.js'
import {requireUser} from '../../middleware/auth.js'
import {flowEngine} from './engine.js'
import {uuidParam} from './helpers.js'

/**
 * `/connect/flow_processes`: runs of the account's flows, newest first, with status, input,
 * output, error and timings. A run left pending by a process that died is shown as `error`.
 */
export function processesRoutes(deps: Deps) {
  const app = new Hono<AppEnv>()

  app.get('/connect/flow_processes.json', async (c) => {
    const user = requireUser(c)
    const filter = parseProcessFilter(c.req.query())
    await flowEngine(deps).reapOrphans(user.accountId)
    return c.json(await deps.store.flows.listProcesses(user.accountId, filter))
  })

  app.get('/connect/flow_processes/:id{[0-9a-fA-F-]+\\.json}', async (c) => {
    const user = requireUser(c)
    const id = uuidParam(c, 'id')
    let process = await deps.store.flows.getProcess(user.accountId, id)
    if (!process) throw notFound()
    if (process.status === 'pending' && (await flowEngine(deps).reapOrphans(user.accountId)) > 0) {
      process = (await deps.store.flows.getProcess(user.accountId, id)) ?? process
    }
    return c.json(process)
  })

  return app
}
