/**
 * A query whose failures are a 422 field map, not the 400 `{error}` `handle` gives a bad query
 * value: the dashboards' `context`/`key` and the account's `set_field` parameters answer as
 * fields (`{"context": ["is not included in the list (...)"]}`), as they always have. Put it in
 * the route's chain (after the loaders that may answer 401/403/404 first): it checks the query by
 * the route's own schema and throws the mapped 422 with every field; `handle` then parses the
 * same, valid query for the handler.
 */
import type {RouteConfig, z} from '@hono/zod-openapi'
import type {MiddlewareHandler} from 'hono'
import {svcMessage} from '../core/contract/messages.js'
import {validationError} from './contract.js'
import type {AppEnv} from './env.js'

export function queryFields(route: RouteConfig): MiddlewareHandler<AppEnv> {
  const schema = route.request?.query as z.ZodType | undefined
  if (!schema) throw new Error(`${route.path}: no query schema`)
  return async (c, next) => {
    // As handle does: an empty value is no value (`?context=` means no context).
    const query = Object.fromEntries(Object.entries(c.req.query()).filter(([, v]) => v !== ''))
    const parsed = await schema.safeParseAsync(query, {error: svcMessage})
    if (!parsed.success) throw validationError('form', parsed.error.issues)
    await next()
  }
}
