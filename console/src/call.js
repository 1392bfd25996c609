// Calls of the API by operation id through the console's typed client (api.js): `call('getPrompt',
// {params: {id}})`. Errors are the client's SvcError (status, message, details); fieldsOf reads a
// 422's field map.
import {fieldsOf, svc} from './api.js'

export {fieldsOf}

/** One call: JSON in, JSON (or text) out, undefined for a 204. */
export function call(op, input = {}) {
  return svc.call(op, input)
}
