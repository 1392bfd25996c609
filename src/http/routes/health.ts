import {contractRoutes as routes} from '../../core/contract/routes.js'
import {createRouter, handle} from '../router.js'
import type {Deps} from '../env.js'

/** `GET /svc/health`: the store answers (one small read), and the scheduled backups' state (docs/backups.md). */
export function healthRoutes(deps: Deps) {
  const app = createRouter()
  handle(app, routes.getHealth, async (c) => {
    const backup = deps.services.backups?.status() ?? null
    try {
      await deps.store.accounts.firstAccount()
    } catch {
      return c.json({status: 'unavailable' as const, store: deps.store.driver, backup}, 503, {'Cache-Control': 'no-store'})
    }
    return c.json({status: 'ok' as const, store: deps.store.driver, backup}, 200, {'Cache-Control': 'no-store'})
  })
  return app
}
