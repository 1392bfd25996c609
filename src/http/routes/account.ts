import {meRoutes as routes} from '../../core/contract/routes.js'
import {createRouter, handle, queryErrorsAsFields} from '../router.js'
import type {Deps} from '../env.js'
import {allowedTo, requireCan} from '../middleware/auth.js'

/**
 * `POST /account/set_field.json`: enable or disable a module of the account (permission `account`,
 * else 403, before the query is looked at). The query is checked by the route's schema and answers
 * a 422 field map with every parameter's message (`queryErrorsAsFields`).
 */
export function accountRoutes(deps: Deps) {
  const app = createRouter()
  queryErrorsAsFields(routes.setAccountField)
  const settings = allowedTo('account.settings')
  handle(app, routes.setAccountField, settings, async (c, {query}) => {
    const user = requireCan(c, 'account.settings')
    const value = await deps.store.accounts.changeModule(user.accountId, query.action_type, query.value)
    return c.json({key: query.key, value})
  })
  return app
}
