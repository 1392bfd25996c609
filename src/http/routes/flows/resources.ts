import {Hono} from 'hono'
import {can} from '../../../core/auth/permissions.js'
import {badRequest, notFound, validation} from '../../../core/errors.js'
import type {JsonObject} from '../../../core/flows/data.js'
import {FLOW_KIND, RESOURCE_KINDS, validateResource, type ResourceKind} from '../../../core/flows/resources.js'
import type {AppEnv, Deps} from '../../env.js'
import {requireUser} from '../../middleware/auth.js'
import {envelope, jsonObject} from '../../middleware/body.js'
import {flowEngine} from './engine.js'
import {checkInputSize, intParam, requireWriter} from './helpers.js'

/**
 * `/svc/resources`: custom connectors and custom flows of the account. `secret_token` is
 * write-only: stored for connector calls, never part of an answer (`has_secret_token` tells).
 * `POST /svc/resources/:id/run.json` runs a flow by hand.
 */
/** scheme://host:port of a connector url (null without one). */
function hostOf(url: string | null): string | null {
  if (!url) return null
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

export function resourcesRoutes(deps: Deps) {
  const app = new Hono<AppEnv>()
  const store = deps.store.flows

  app.get('/svc/resources.json', async (c) => {
    const user = requireUser(c)
    const {kind, code, q} = c.req.query()
    if (kind && !(RESOURCE_KINDS as readonly string[]).includes(kind)) throw badRequest(`kind must be one of ${RESOURCE_KINDS.join(', ')}`)
    return c.json(await store.listResources(user.accountId, {kind: (kind || undefined) as ResourceKind | undefined, code: code || undefined, q: q?.slice(0, 200) || undefined}))
  })

  app.get('/svc/resources/:id{[0-9]+\\.json}', async (c) => {
    const user = requireUser(c)
    const resource = await store.getResource(user.accountId, intParam(c, 'id'))
    if (!resource) throw notFound()
    return c.json(resource)
  })

  app.post('/svc/resources.json', async (c) => {
    const user = requireWriter(c)
    const write = validateResource(envelope(await jsonObject(c), 'resource'))
    return c.json(await store.createResource(user.accountId, user.id, write), 201)
  })

  app.patch('/svc/resources/:id{[0-9]+\\.json}', async (c) => {
    const user = requireWriter(c)
    const id = intParam(c, 'id')
    const body = envelope(await jsonObject(c), 'resource')
    const existing = await store.getResource(user.accountId, id)
    if (!existing) throw notFound()
    const write = validateResource(body, existing)
    // The stored secret only ever goes to the host it was given for: moving a connector elsewhere
    // needs the secret again (or an admin), so a user cannot send an admin's secret to their server.
    if (existing.has_secret_token && write.secret_token === undefined && hostOf(write.url) !== hostOf(existing.url) &&
      !can(user, 'connector.repoint')) {
      throw validation({secret_token: ["must be given again when the url's host changes"]})
    }
    const updated = await store.updateResource(user.accountId, id, write)
    if (!updated) throw notFound()
    return c.json(updated)
  })

  app.delete('/svc/resources/:id{[0-9]+\\.json}', async (c) => {
    const user = requireWriter(c)
    if (!(await store.deleteResource(user.accountId, intParam(c, 'id')))) throw notFound()
    return c.body(null, 204)
  })

  app.post('/svc/resources/:id{[0-9]+}/run.json', async (c) => {
    const user = requireWriter(c)
    const flow = await store.getResource(user.accountId, intParam(c, 'id'))
    if (!flow) throw notFound()
    if (flow.kind !== FLOW_KIND) throw badRequest('only a flow (svc/custom_flow) can be run')
    const body = await jsonObject(c)
    const input: JsonObject = envelope(body, 'input')
    checkInputSize(input, flowEngine(deps).limits.maxInputBytes)
    const process = await flowEngine(deps).startAndWait({
      accountId: user.accountId, flowCode: flow.code, flow, input, trigger: 'manual', userId: user.id,
    })
    return c.json(process, 201)
  })

  return app
}
