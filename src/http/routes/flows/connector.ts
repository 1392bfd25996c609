import type {Context, MiddlewareHandler} from 'hono'
import {flowRoutes as routes} from '../../../core/contract/routes.js'
import {notFound, SvcError, validation} from '../../../core/errors.js'
import {pathParamProblem, pathParams, type ConnectorMethod} from '../../../core/flows/connector.js'
import {FlowRunError, type JsonObject} from '../../../core/flows/data.js'
import {CODE_RE, METHOD_NAME_RE} from '../../../core/flows/program.js'
import {createRouter, handle, param, slot} from '../../router.js'
import type {AppEnv, Deps} from '../../env.js'
import {requireUser} from '../../middleware/auth.js'
import {callConnector, connectorMethod} from '../../../services/flows/connector-client.js'
import {limit, type RateSpec} from './helpers.js'

/** Public connector methods: 60 calls at once per client address, refilled at 60 a minute. */
export const CONNECTOR_RATE: RateSpec = {bucket: 'connector', capacity: 60, perMinute: 60}

/**
 * `GET|POST /svc/connector/:code/:method`: calls a connector method for the caller. Without
 * login only methods flagged `public: true`; otherwise a signed-in user of the connector's
 * account. Params come from the query string and (POST) the JSON body. The answer is the
 * upstream JSON (or text); the secret goes only to the upstream API.
 */
/** The connector and its method of `/svc/connector/:code/:method`, loaded once by `methodOf`. */
const loaded = slot<{found: NonNullable<Awaited<ReturnType<Deps['store']['flows']['findConnector']>>>; method: ConnectorMethod}>('connectorMethod')

export function connectorRoutes(deps: Deps) {
  const app = createRouter()

  /**
   * Loads the connector and its method with the caller checked, before any body is read: 404 for an
   * unknown or foreign connector or method; 401 without login for a method that is not public; a
   * public one is rate-limited per client address for callers outside the connector's account.
   */
  const methodOf: MiddlewareHandler<AppEnv> = async (c, next) => {
    const code = param(c, 'code')
    const name = param(c, 'method')
    const hosted = c.get('hostedApp')
    const any = CODE_RE.test(code) && METHOD_NAME_RE.test(name) ? await deps.store.flows.findConnector(code) : null
    // On an app's origin only its own account's connectors answer (src/http/app-origin/).
    const found = any && (!hosted || any.accountId === hosted.account_id) ? any : null
    const method = found ? connectorMethod(found.resource, name) : undefined
    const user = c.get('user')
    const ownAccount = !!found && !!user && user.accountId === found.accountId
    if (!method?.public) {
      requireUser(c)
      if (!ownAccount) throw notFound('connector not found')
    } else if (!ownAccount) await limit(c, deps, CONNECTOR_RATE)
    if (!found || !method) throw notFound('method not found')
    loaded.set(c, {found, method})
    await next()
  }

  /** Params: the query string, then (POST) the body, a JSON object read like every body (400 malformed, 422 past 64 levels). */
  const call = async (c: Context<AppEnv>, body: JsonObject) => {
    const {found, method} = loaded.get(c)
    const params: JsonObject = {...c.req.query(), ...body}
    const problems = pathParams(method.path).flatMap((p) => {
      const problem = pathParamProblem(params[p])
      return problem ? [[p, [problem]] as [string, string[]]] : []
    })
    if (problems.length) throw validation(Object.fromEntries(problems))

    const limits = deps.services.flows.limits
    try {
      const result = await callConnector(deps.store, found.accountId, found.resource, method, params, c.req.raw.signal, limits)
      return c.json(result as object)
    } catch (error) {
      if (error instanceof FlowRunError) throw new SvcError('network', 502, error.message)
      throw error
    }
  }

  handle(app, routes.callConnectorGet, methodOf, (c) => call(c, {}))
  handle(app, routes.callConnectorPost, methodOf, (c, {body}) => call(c, body))

  return app
}
