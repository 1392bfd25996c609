import type {MiddlewareHandler} from 'hono'
import type {ActionReplyView} from '../../../core/contract/apps.js'
import {appRoutes as routes} from '../../../core/contract/routes.js'
import {notFound} from '../../../core/errors.js'
import type {FlowProcess} from '../../../core/flows/processes.js'
import {isUuid} from '../../../core/flows/processes.js'
import type {AppAction, AppActionTarget} from '../../../store/apps/types.js'
import {createRouter, handle, param, slot} from '../../router.js'
import type {AppEnv, Deps} from '../../env.js'
import {requireCan, requireUser} from '../../middleware/auth.js'
import {checkInputSize, limit, type RateSpec} from './helpers.js'

/** Public actions: 30 calls at once per client address, refilled at 30 a minute; status polls 120 / 120. */
export const ACTION_RATE: RateSpec = {bucket: 'app-action', capacity: 30, perMinute: 30}
export const STATUS_RATE: RateSpec = {bucket: 'app-action-status', capacity: 120, perMinute: 120}

/** What an action call and its status poll answer (platform-api.md). */
export function actionReply(process: FlowProcess): ActionReplyView {
  const reply: ActionReplyView = {flow_process_id: process.id, status: process.status}
  if (process.status === 'finished') reply.data = process.output ?? {}
  if (process.status === 'error') reply.error = process.error ?? 'error'
  return reply
}

/**
 * `POST /svc/apps/:id/action/:name` runs the flow (`flow_code`) declared by the app's action with
 * the body as input; `GET .../status?flow_process_id=` polls it. A non-public action needs a
 * signed-in user of the app's account; a public one is open, rate-limited per client address.
 */
/** The app and its action of `/svc/apps/:id/action/:name`, with who may call it, loaded once by `resolve`. */
interface ActionCall {
  target: AppActionTarget
  action: AppAction
  userId: number | null
}
const loaded = slot<ActionCall>('action')

export function actionsRoutes(deps: Deps) {
  const app = createRouter()

  /**
   * Loads the app and its action with the caller checked: 404 for an unknown, inactive or foreign
   * app or action; 401 without login for an action that is not public; a public one is rate-limited
   * per client address for callers outside the app's account. Runs before the body is read.
   */
  const resolve = (rate: RateSpec): MiddlewareHandler<AppEnv> => async (c, next) => {
    const appId = param(c, 'id')
    const name = param(c, 'name')
    const target = isUuid(appId) ? await deps.store.apps.actionTarget(appId.toLowerCase()) : null
    if (!target || !target.active) throw notFound('app not found')
    const action = (Array.isArray(target.actions) ? target.actions : []).find((a) => a && a.action === name)
    const user = c.get('user')
    if (!action?.public) {
      const signedIn = requireUser(c)
      if (signedIn.accountId !== target.account_id) throw notFound('app not found')
      // One rule with running the flow by hand (POST /svc/resources/:id/run.json): a guest runs neither.
      if (action) requireCan(c, 'resource.write')
    } else if (!user || user.accountId !== target.account_id) await limit(c, deps, rate)
    if (!action) throw notFound('action not found')
    loaded.set(c, {target, action, userId: user && user.accountId === target.account_id ? user.id : null})
    await next()
  }

  /** The body (any JSON object, nesting at most 64 deep) is the flow's input. */
  handle(app, routes.runAppAction, resolve(ACTION_RATE), async (c, {body: input}) => {
    const {target, action, userId} = loaded.get(c)
    const engine = deps.services.flows
    checkInputSize(input, engine.limits.maxInputBytes)
    const process = await engine.startAndWait({
      accountId: target.account_id, flowCode: action.flow_code, input, trigger: 'action', appId: target.id, action: action.action, userId, requestId: c.get('requestId'),
    })
    return c.json(actionReply(process))
  })

  handle(app, routes.getAppActionStatus, resolve(STATUS_RATE), async (c, {query}) => {
    const {target, action} = loaded.get(c)
    const id = query.flow_process_id
    const process = isUuid(id) ? await deps.store.flows.getProcess(target.account_id, id.toLowerCase()) : null
    if (!process || process.app_id !== target.id || process.action !== action.action) throw notFound('flow process not found')
    if (process.status === 'pending' && (await deps.services.flows.reapOrphans(target.account_id)) > 0) {
      return c.json(actionReply((await deps.store.flows.getProcess(target.account_id, process.id)) ?? process))
    }
    return c.json(actionReply(process))
  })

  return app
}
