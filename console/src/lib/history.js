// @ts-check
// The journal's recent changes (decisions.md "History": `GET /svc/history.json`, newest first),
// through the typed client's operation of that path. Answers null when this server has no such
// route yet (no operation, or a 404): the overview then shows nothing, not an error.
import {OPERATIONS} from '../../../src/sdk.ts'
import {svc} from './client.js'

/** @typedef {{bookmark: string, kind: string, id: string | number, op: string, door: string, client: string | null, actor: {type: string, id: unknown, name: string | null} | null, at: string, summary: string}} HistoryEntry */

/** @returns {Promise<HistoryEntry[] | null>} */
export async function recentChanges(limit = 10) {
  const op = /** @type {import('../../../src/sdk.ts').OperationId | undefined} */ (
    Object.entries(OPERATIONS).find(([, o]) => o.method === 'get' && /** @type {string} */ (o.path) === '/svc/history.json')?.[0])
  if (!op) return null
  try {
    const entries = await svc.call(op, /** @type {any} */ ({query: {limit}}))
    return Array.isArray(entries) ? entries : null
  } catch (e) {
    if (e?.status === 404) return null
    throw e
  }
}
