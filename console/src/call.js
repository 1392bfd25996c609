// Calls of the API by operation id, with the method and path of the contract's own operations
// table (src/core/contract/operations.ts, the table the typed client of the CLI reads): the console
// never spells a path twice. `call('getPrompt', {params: {id}})`; errors are api.js's ApiError.
import {fillPath, OPERATIONS} from '../../src/core/contract/operations.ts'
import {ApiError, api} from './api.js'

export {ApiError}

/** The path of an operation with its params filled in and its query appended. */
export function pathOf(op, {params, query} = {}) {
  const spec = OPERATIONS[op]
  if (!spec) throw new Error(`unknown operation ${op}`)
  const search = new URLSearchParams()
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') search.append(k, String(v))
  const qs = search.toString()
  return fillPath(spec.path, params) + (qs ? `?${qs}` : '')
}

/** One call: JSON in, JSON out (undefined for a 204). */
export function call(op, input = {}) {
  return api(OPERATIONS[op].method.toUpperCase(), pathOf(op, input), input.body)
}
