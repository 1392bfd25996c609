import {Hono} from 'hono'
import {parseSetField} from '../../core/account/set-field.js'
import type {AppEnv, Deps} from '../env.js'
import {requireCan} from '../middleware/auth.js'

/** `POST /account/set_field.json`: enable or disable a module of the account (permission `account`). */
export function accountRoutes(deps: Deps) {
  const app = new Hono<AppEnv>()
  app.post('/account/set_field.json', async (c) => {
    const user = requireCan(c, 'account.settings')
    const request = parseSetField(c.req.query())
    const value = await deps.store.accounts.changeModule(user.accountId, request.action, request.value)
    return c.json({key: request.key, value})
  })
  return app
}
