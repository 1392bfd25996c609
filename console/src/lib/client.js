// @ts-check
// The console's one way to speak to the API: the typed client (src/sdk.ts `createClient`) over a
// same-origin backend carried by the HttpOnly session cookie. Screens call operations by id —
// `svc.listRecords({params: {db_id}, query})` — and catch the client's SvcError (`status`,
// `message`, `details`). A call that needs the answer's ETag goes through `tagged` (editable.svelte.js
// uses it); nothing else writes a path or calls fetch (test/console/typed-client.test.ts).
import {createClient} from '../../../src/sdk.ts'
import {operationRequest, readAnswer} from '../../../src/sdk.ts'

/** @typedef {import('../../../src/sdk.ts').SvcClient} SvcClient */
/** @typedef {import('../../../src/sdk.ts').OperationId} OperationId */
/** @typedef {import('../../../src/sdk.ts').Backend} Backend */

/**
 * A Backend (src/client/backend.ts) for the page.
 * @param {string} description
 * @param {RequestCredentials} credentials
 * @param {(res: Response) => void} [onAnswer]
 * @returns {Backend}
 */
function pageBackend(description, credentials, onAnswer) {
  return {
    kind: 'remote',
    description,
    get baseUrl() {
      return location.origin
    },
    async fetch(path, init = {}) {
      const res = await fetch(path, {...init, credentials})
      onAnswer?.(res)
      return res
    },
    async close() {},
  }
}

/** Signed in with the session cookie; a 401 goes to the login page. */
export const svc = createClient({backend: pageBackend('console', 'same-origin', (res) => {
  if (res.status === 401) location.href = `/svc/login?next=${encodeURIComponent(location.pathname + location.hash)}`
})})

/**
 * The same client without the page's cookies (`credentials: 'omit'`): how an anonymous visitor
 * reaches the public methods. The browser keeps no cookie from its answers, so each call is a
 * new visitor.
 */
export const anonymous = createClient({backend: pageBackend('anonymous visitor', 'omit')})

/**
 * A call of operation `op` that also answers the response's headers: `{body, headers}` (the ETag
 * for If-Match on the next write, a prompt render's source layer).
 * @template {OperationId} K
 * @param {K} op
 * @param {import('../../../src/sdk.ts').CallInput<K>} [input]
 * @returns {Promise<{body: import('../../../src/sdk.ts').CallOutput<K>, headers: Headers}>}
 */
export async function tagged(op, input) {
  const {method, path, options} = operationRequest(op, /** @type {any} */ (input))
  const res = await svc.raw(method, path, options)
  return {body: /** @type {any} */ (await readAnswer(res)), headers: res.headers}
}

/**
 * Opens an event stream (Server-Sent Events) of operation `op` over the same backend (the session
 * cookie; a 401 goes to the login page like any call): answers the Response, whose body
 * lib/live.svelte.js reads. `lastEventId` (the last event's `id:`, a journal bookmark) asks the
 * server to resume after it. Read over fetch rather than EventSource so a resume after any failure
 * carries Last-Event-ID and the stream closes the moment its screen is left.
 * @template {OperationId} K
 * @param {K} op
 * @param {import('../../../src/sdk.ts').CallInput<K>} input
 * @param {string} [lastEventId]
 * @returns {Promise<Response>}
 */
export function stream(op, input, lastEventId) {
  const {method, path, options} = operationRequest(op, /** @type {any} */ (input))
  const headers = {...options.headers, accept: 'text/event-stream', ...(lastEventId ? {'last-event-id': lastEventId} : {})}
  return svc.raw(method, path, {...options, headers})
}

export {fieldsOf} from './errors.js'
