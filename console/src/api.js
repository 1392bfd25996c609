// The console is a client of the API like the CLI and scripts: every call goes through the typed
// client (src/sdk.ts, `createClient`) by operation id, over a same-origin backend carried by the
// HttpOnly session cookie. Errors are the client's SvcError (`status`, `message`, `details`).
import {createClient} from '../../src/sdk.ts'
import {operationRequest, readAnswer} from '../../src/client/typed.ts'

export {fieldsOf} from './errors.js'

/** A Backend (src/client/backend.ts) for the page: same origin, the session cookie; a 401 goes to the login page. */
const pageBackend = {
  kind: 'remote',
  description: 'console',
  get baseUrl() {
    return location.origin
  },
  async fetch(path, init = {}) {
    const res = await fetch(path, {...init, credentials: 'same-origin'})
    if (res.status === 401) location.href = `/svc/login?next=${encodeURIComponent(location.pathname + location.hash)}`
    return res
  },
  async close() {},
}

/** `svc.listDbs()`, `svc.getRecord({params: {db_id, id}})`, … one method per operation of the API. */
export const svc = createClient({backend: pageBackend})

/**
 * The same client without the page's cookies (`credentials: 'omit'`): how an anonymous visitor
 * reaches the public methods. The browser keeps no cookie from its answers, so each call is a
 * new visitor.
 */
export const anonymous = createClient({backend: {
  kind: 'remote',
  description: 'anonymous visitor',
  get baseUrl() {
    return location.origin
  },
  fetch: (path, init = {}) => fetch(path, {...init, credentials: 'omit'}),
  async close() {},
}})

/** A call that also answers the response's ETag: {body, etag} (for If-Match on the next write). */
export async function callWithEtag(op, input) {
  const {method, path, options} = operationRequest(op, input)
  const res = await svc.raw(method, path, options)
  return {body: await readAnswer(res), etag: res.headers.get('etag')}
}

/** `GET /svc/dbs/7/records.json?x=1` style call through the client, for a screen not yet on operation ids. */
export async function api(method, path, body) {
  return readAnswer(await svc.raw(method, path, body === undefined ? {} : {body}))
}

/** A rendered prompt and the layer of the cascade that won (X-Svc-Prompt-Source). */
export async function renderPrompt(code, vars) {
  const {method, path, options} = operationRequest('renderPrompt', {params: {code}, query: vars})
  const res = await svc.raw(method, path, {...options, headers: {accept: 'text/markdown'}})
  return {text: await res.text(), source: res.headers.get('x-svc-prompt-source') ?? 'unknown', extra: res.headers.get('x-svc-prompt-extra')}
}
