/**
 * User administration of the caller's account (admins only, `account.users`): what `svc admin
 * user add/list/token` does on a data dir, done over the API for a running server (the console's
 * account screen). Every route acts inside the caller's account: another account's user is a 404.
 */
import {meRoutes as routes} from '../../core/contract/routes.js'
import {notFound} from '../../core/errors.js'
import {createRouter, handle, param} from '../router.js'
import type {Deps} from '../env.js'
import {allowedTo, requireUser} from '../middleware/auth.js'

const userId = (raw: string) => (/^\d{1,15}$/.test(raw) ? Number(raw) : 0)

export function userRoutes(deps: Deps) {
  const app = createRouter()
  const admin = allowedTo('account.users')

  handle(app, routes.listUsers, admin, async (c) => c.json(await deps.store.accounts.listUsers(requireUser(c).accountId)))

  handle(app, routes.createUser, admin, async (c, {body}) => {
    const accountId = requireUser(c).accountId
    const input = body.user
    const user = await deps.store.accounts.addUser({
      accountId, login: input.login, role: input.role ?? 'user', permissions: input.permissions,
      teams: input.teams?.map((t) => t.trim()), department: input.department?.trim() || null, email: input.email, name: input.name,
    })
    const token = await deps.store.accounts.createToken(user.id)
    c.header('Cache-Control', 'no-store')
    return c.json({user, token}, 201)
  })

  handle(app, routes.revokeUserTokens, admin, async (c) => {
    const id = userId(param(c, 'id'))
    const revoked = id ? await deps.store.accounts.revokeAllTokens(requireUser(c).accountId, id) : null
    if (revoked === null) throw notFound('user not found')
    return c.json({user_id: id, revoked})
  })
  return app
}
