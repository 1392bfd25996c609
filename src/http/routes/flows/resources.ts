import type {MiddlewareHandler} from 'hono'
import {can} from '../../../core/auth/permissions.js'
import {flowRoutes as routes} from '../../../core/contract/routes.js'
import {badRequest, notFound, validation} from '../../../core/errors.js'
import {FLOW_KIND, resourceData, type Resource} from '../../../core/flows/resources.js'
import {createRouter, handle, slot} from '../../router.js'
import type {AppEnv, Deps} from '../../env.js'
import {allowedTo, requireUser, userRequired} from '../../middleware/auth.js'
import {checkInputSize, intParam, requireWriter} from './helpers.js'

/** scheme://host:port of a connector url (null without one). */
function hostOf(url: string | null): string | null {
  if (!url) return null
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

/** The resource of `:id`, loaded once by `resourceOf`. */
const loaded = slot<Resource>('resource')

/**
 * `/svc/resources`: custom connectors and custom flows of the account, served from the contract
 * (bodies checked by the schemas of src/core/contract/flows.ts). `secret_token` is write-only:
 * stored for connector calls, never part of an answer (`has_secret_token` tells).
 * `POST /svc/resources/:id/run.json` runs a flow by hand.
 */
export function resourcesRoutes(deps: Deps) {
  const app = createRouter()
  const store = deps.store.flows

  const reader = userRequired
  /** Writes need `resource.write` before anything is looked up. */
  const writer = allowedTo('resource.write')
  /** Loads the resource of `:id` of the user's account, else 404 (foreign, unknown, not a number alike). */
  const resourceOf: MiddlewareHandler<AppEnv> = async (c, next) => {
    const user = requireUser(c)
    const resource = await store.getResource(user.accountId, intParam(c, 'id'))
    if (!resource) throw notFound()
    loaded.set(c, resource)
    await next()
  }

  handle(app, routes.listResources, reader, async (c, {query}) => {
    const user = requireUser(c)
    return c.json(await store.listResources(user.accountId, {kind: query.kind, code: query.code || undefined, q: query.q}))
  })

  handle(app, routes.getResource, resourceOf, async (c) => c.json(loaded.get(c)))

  handle(app, routes.createResource, writer, async (c, {body}) => {
    const user = requireWriter(c)
    return c.json(await store.createResource(user.accountId, user.id, resourceData(body.resource)), 201)
  })

  handle(app, routes.updateResource, writer, resourceOf, async (c, {body}) => {
    const user = requireWriter(c)
    const existing = loaded.get(c)
    const write = resourceData(body.resource, existing)
    // The stored secret only ever goes to the host it was given for: moving a connector elsewhere
    // needs the secret again (or an admin), so a user cannot send an admin's secret to their server.
    if (existing.has_secret_token && write.secret_token === undefined && hostOf(write.url) !== hostOf(existing.url) &&
      !can(user, 'connector.repoint')) {
      throw validation({secret_token: ["must be given again when the url's host changes"]})
    }
    const updated = await store.updateResource(user.accountId, existing.id, write)
    if (!updated) throw notFound()
    return c.json(updated)
  })

  handle(app, routes.deleteResource, writer, resourceOf, async (c) => {
    if (!(await store.deleteResource(requireUser(c).accountId, loaded.get(c).id))) throw notFound()
    return c.body(null, 204)
  })

  /** Only a flow runs; the body's `input` (default `{}`) is its input, within the runner's bound. */
  const aFlow: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (loaded.get(c).kind !== FLOW_KIND) throw badRequest('only a flow (svc/custom_flow) can be run')
    await next()
  }
  handle(app, routes.runFlow, writer, resourceOf, aFlow, async (c, {body}) => {
    const user = requireWriter(c)
    const flow = loaded.get(c)
    const input = body.input ?? {}
    checkInputSize(input, deps.services.flows.limits.maxInputBytes)
    const process = await deps.services.flows.startAndWait({
      accountId: user.accountId, flowCode: flow.code, flow, input, trigger: 'manual', userId: user.id, requestId: c.get('requestId'),
    })
    return c.json(process, 201)
  })

  return app
}
