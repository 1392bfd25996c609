import type {Context} from 'hono'
import {badRequest, validation} from '../../core/errors.js'
import {MAX_JSON_DEPTH, nestedDeeperThan} from '../../core/json-depth.js'

/**
 * The request body as a JSON object; 400 for malformed JSON or a non-object, 422 `{body: [...]}` when
 * it nests deeper than MAX_JSON_DEPTH (stored JSON is re-serialised: deep nesting would overflow the stack). Empty body → {}.
 */
export async function jsonObject(c: Context): Promise<Record<string, unknown>> {
  const known = parsedBodies.get(c.req)
  if (known) return known
  const text = await c.req.text()
  if (text.trim() === '') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw badRequest('invalid JSON body')
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest('JSON body must be an object')
  if (nestedDeeperThan(parsed)) throw validation({body: [`nests deeper than ${MAX_JSON_DEPTH} levels`]})
  parsedBodies.set(c.req, parsed as Record<string, unknown>)
  return parsed as Record<string, unknown>
}

/** A body read by a route's middleware (dashboards' fixed members) is not parsed again by `handle`. */
const parsedBodies = new WeakMap<object, Record<string, unknown>>()

/** `body[key]` as an object (the `{prompt: {...}}` envelope); 400 when present but not an object, {} when absent. */
export function envelope(body: Record<string, unknown>, key: string): Record<string, unknown> {
  const inner = body[key]
  if (inner === undefined) return {}
  if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) throw badRequest(`"${key}" must be an object`)
  return inner as Record<string, unknown>
}
