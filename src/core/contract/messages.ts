/**
 * The wording of a schema failure: zod's issues as the messages decisions.md fixes for the 422
 * field map ("can't be blank", "must be a string", "is too long (maximum is 255 characters)", ...).
 * `parseInput` passes it to every parse of a route's query and body, so a schema only names a
 * message of its own where the wording is particular to the field (`must be chat or agent`).
 */
import type {z} from '@hono/zod-openapi'

type Issue = z.core.$ZodRawIssue

const TYPE_WORDS: Record<string, string> = {
  string: 'must be a string',
  number: 'must be a number',
  int: 'must be an integer',
  boolean: 'must be true or false',
  object: 'must be an object',
  array: 'must be an array',
  record: 'must be an object',
}

const sizeLimit = (issue: Issue & {maximum?: unknown; minimum?: unknown}, limit: unknown) => String(limit)

/** The message of one issue, by its kind and the value's type (fields with a message of their own keep it). */
export function svcMessage(issue: Issue): string | undefined {
  const input = issue.input
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined || input === null) return "can't be blank"
      return TYPE_WORDS[issue.expected as string] ?? 'is invalid'
    case 'too_big': {
      const i = issue as Issue & {origin?: string; maximum?: unknown}
      if (i.origin === 'string') return `is too long (maximum is ${sizeLimit(i, i.maximum)} characters)`
      if (i.origin === 'array' || i.origin === 'set') return `has too many items (maximum is ${sizeLimit(i, i.maximum)})`
      return `must be less than or equal to ${sizeLimit(i, i.maximum)}`
    }
    case 'too_small': {
      const i = issue as Issue & {origin?: string; minimum?: unknown}
      if (i.origin === 'string') return Number(i.minimum) <= 1 ? "can't be blank" : `is too short (minimum is ${sizeLimit(i, i.minimum)} characters)`
      if (i.origin === 'array' || i.origin === 'set') return Number(i.minimum) <= 1 ? "can't be empty" : `needs at least ${sizeLimit(i, i.minimum)} items`
      return `must be greater than or equal to ${sizeLimit(i, i.minimum)}`
    }
    case 'invalid_value': {
      const values = (issue as Issue & {values?: unknown[]}).values ?? []
      return `must be one of ${values.map(String).join(', ')}`
    }
    case 'invalid_format':
      return 'is invalid'
    case 'unrecognized_keys': {
      const keys = (issue as Issue & {keys?: string[]}).keys ?? []
      return `has unknown keys: ${keys.join(', ')}`
    }
    default:
      return undefined
  }
}

/** A string field of a write, with today's messages: blank (`''`, spaces, null or absent) is "can't be blank". */
export const blankMessage = "can't be blank"
