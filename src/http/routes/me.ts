import {meRoutes as routes} from '../../core/contract/routes.js'
import {notFound} from '../../core/errors.js'
import {checkSettingChanges} from '../../core/account/user-settings.js'
import {createRouter, handle} from '../router.js'
import type {Deps} from '../env.js'
import {requireUser} from '../middleware/auth.js'

/** `GET /svc/me.json`: the current user (never a token), for `svc whoami`. */
export function meRoutes(deps: Deps) {
  const app = createRouter()
  handle(app, routes.getMe, async (c) => {
    const principal = requireUser(c)
    const user = await deps.store.accounts.getUser(principal.accountId, principal.id)
    const account = await deps.store.accounts.getAccount(principal.accountId)
    if (!user || !account) throw notFound()
    return c.json({...user, account: {id: account.id, name: account.name, modules: account.settings.modules}})
  })
  // The user's own settings: any signed-in user, only their own.
  handle(app, routes.getMySettings, async (c) => c.json({settings: await deps.store.accounts.userSettings(requireUser(c).id)}))
  handle(app, routes.updateMySettings, async (c, {body}) => {
    const user = requireUser(c)
    const changes = checkSettingChanges(body.settings)
    return c.json({settings: await deps.store.accounts.changeUserSettings(user.accountId, user.id, changes)})
  })
  return app
}
