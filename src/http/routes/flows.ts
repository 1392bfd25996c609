import {createRouter} from '../router.js'
import type {Deps} from '../env.js'
import {actionsRoutes} from './flows/actions.js'
import {connectorRoutes} from './flows/connector.js'
import {cronsRoutes} from './flows/crons.js'
import {dbTriggersRoutes} from './flows/db-triggers.js'
import {processesRoutes} from './flows/processes.js'
import {resourcesRoutes} from './flows/resources.js'

/**
 * Routes of the flows area: resources (connectors, flows), app actions, public connector
 * methods, crons and flow processes. Runs are started by the server's flow runner and crons by its
 * scheduler (src/services/flows/: `deps.services`; the scheduler runs in `svc serve` only).
 */
export function flowsRoutes(deps: Deps) {
  const app = createRouter()
  app.route('/', resourcesRoutes(deps))
  app.route('/', actionsRoutes(deps))
  app.route('/', connectorRoutes(deps))
  app.route('/', cronsRoutes(deps))
  app.route('/', dbTriggersRoutes(deps))
  app.route('/', processesRoutes(deps))
  return app
}
