import {Hono} from 'hono'
import {badRequest, notFound, SvcError, validation} from '../../../core/errors.js'
import {pathParams} from '../../../core/flows/connector.js'
import {FlowRunError, type JsonObject} from '../../../core/flows/data.js'
import {CODE_RE, METHOD_NAME_RE} from '../../../core/flows/program.js'
import type {AppEnv, Deps} from '../../env.js'
import {requireUser} from '../../middleware/auth.js'
import {flowEngine} from './engine.js'
import {callConnector, connectorMethod} from './connector-client.js'
import {limit, type RateSpec} from './helpers.js'

/** Public connector methods: 60 calls at once per client address, refilled at 60 a minute. */
export const CONNECTOR_RATE: RateSpec = {bucket: 'connector', capacity: 60, perMinute: 60}

/**
 * `GET|POST /svc/connector/:code/:method`: calls a connector method for the caller. Without
 * login only methods flagged `public: true`; otherwise a signed-in user of the connector's
 * account. Params come from the query string and (POST) the JSON body. The answer is the
 * upstream JSON (or text); the secret goes only to the upstream API.
 */
export function connectorRoutes(deps: Deps) {
  const app = new Hono<AppEnv>()

  app.on(['GET', 'POST'], '/svc/connector/:code/:method', async (c) => {
    const code = c.req.param('code')
    const name = c.req.param('method')
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

    const params: JsonObject = {...c.req.query()}
    if (c.req.method === 'POST') {
      const text = await c.req.text()
      if (text.trim() !== '') {
        let body: unknown
        try {
          body = JSON.parse(text)
        } catch {
          throw badRequest('invalid JSON body')
        }
        if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('JSON body must be an object')
        Object.assign(params, body)
      }
    }
    const missing = pathParams(method.path).filter((p) => params[p] === undefined || params[p] === null || params[p] === '')
    if (missing.length) throw validation(Object.fromEntries(missing.map((p) => [p, ['is required']])))

    const limits = flowEngine(deps).limits
    try {
      const result = await callConnector(deps.store, found.accountId, found.resource, method, params, c.req.raw.signal, limits)
      return c.json(result as object)
    } catch (error) {
      if (error instanceof FlowRunError) throw new SvcError('network', 502, error.message)
      throw error
    }
  })

  return app
}
