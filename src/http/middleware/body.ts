import type {Context} from 'hono'
import {badRequest} from '../../core/errors.js'

/** The request body as a JSON object; 400 for malformed JSON or a non-object. Empty body → {}. */
export async function jsonObject(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text()
  if (text.trim() === '') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw badRequest('invalid JSON body')
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest('JSON body must be an object')
  return parsed as Record<string, unknown>
}

/** `body[key]` as an object (the `{prompt: {...}}` envelope); 400 when present but not an object, {} when absent. */
export function envelope(body: Record<string, unknown>, key: string): Record<string, unknown> {
  const inner = body[key]
  if (inner === undefined) return {}
  if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) throw badRequest(`"${key}" must be an object`)
  return inner as Record<string, unknown>
}
