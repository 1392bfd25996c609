/**
 * The typed client for scripts: `import {createClient} from 'svc'`.
 *
 *   const svc = createClient({url: 'http://127.0.0.1:4000', token: process.env.SVC_TOKEN})
 *   const prompts = await svc.listPrompts({query: {kind: 'agent'}})
 *   const db = await svc.call('createDb', {body: {db: {name: 'Leads', code: 'leads'}}})
 *
 * One method per operation of the OpenAPI document (its operationId), typed from the same
 * schemas the server validates with. Errors are thrown as SvcError (`status`, `message`, and for a
 * 422 the field map in `details`). It loads neither zod nor the server.
 */
import {Client, type Backend} from './client/backend.js'
import {remoteBackend} from './client/remote.js'
import type {CallArgs, CallOutput} from './client/typed.js'
import {OPERATIONS, type OperationId} from './core/contract/operations.js'

export {SvcError, isSvcError, type FieldErrors} from './core/errors.js'
export {OPERATIONS, type OperationId} from './core/contract/operations.js'
export type {CallArgs, CallInput, CallOutput} from './client/typed.js'
export type {Backend} from './client/backend.js'
export type {PromptView, PromptInput, SystemPromptInfo} from './core/contract/prompts.js'
export type {DashboardView, WidgetsView, WidgetView, SelectView} from './core/contract/dashboards.js'
export type {AppView} from './core/contract/apps.js'
export type {DbView, RecordView, TableUsage} from './core/contract/dbs.js'
export type {ResourceView, CronView, FlowProcessView, FlowProcessDetailView} from './core/contract/flows.js'
export type {UserView, MeView} from './core/contract/account.js'
// What a client that edits (the web console) needs beside the calls, all zod-free: the wire (a request by
// operation, an answer read back), a listed record's ETag (the If-Match of an inline edit), the per-line
// messages of an NDJSON import, and the typed diff of two db definitions (a 412's "their changes").
export {operationRequest, readAnswer} from './client/typed.js'
export {recordEtag} from './core/dbs/etag.js'
export {lineErrors, recordOfLine} from './core/dbs/import-lines.js'
export {definitionOf, describeChange, diffDb} from './core/dbs/diff.js'
// The journal's (docs/history.md): a version's ETag (the If-Match of a restore), and the diff of two
// versions (the console's History panel diffs a version against the current one) — loaded on demand,
// so the `diff` package stays out of a page's first load.
export {versionEtag} from './core/journal/etag.js'
export type {VersionDiff} from './core/journal/diff.js'
export const loadVersionDiff = async () => (await import('./core/journal/diff.js')).diffVersions
export {DOORS, JOURNAL_KINDS, JOURNAL_OPS, type JournalKind} from './core/journal/types.js'

export interface ClientOptions {
  /** Server URL, e.g. `http://127.0.0.1:4000`. */
  url?: string
  /** API token (sent as `Authorization: Bearer`). */
  token?: string
  /** Or any Backend (the CLI's embedded one, a test double). */
  backend?: Backend
}

/** `svc.getPrompt({params: {id}})`, ..., and `svc.call(operationId, input)`. */
export type SvcClient = {
  [K in OperationId]: (...args: CallArgs<K>) => Promise<CallOutput<K>>
} & {
  call<K extends OperationId>(op: K, ...args: CallArgs<K>): Promise<CallOutput<K>>
  /** The untyped escape hatch: `raw('GET', '/svc/me.json')` answers the Response. */
  raw: Client['raw']
}

export function createClient(options: ClientOptions): SvcClient {
  const backend = options.backend ?? (options.url ? remoteBackend(options.url, options.token) : undefined)
  if (!backend) throw new TypeError('createClient needs {url, token} or {backend}')
  const client = new Client(backend)
  const api: Record<string, unknown> = {
    call: (op: OperationId, input?: never) => client.call(op, input as never),
    raw: client.raw.bind(client),
  }
  for (const op of Object.keys(OPERATIONS) as OperationId[]) api[op] = (input?: never) => client.call(op, input as never)
  return api as SvcClient
}
