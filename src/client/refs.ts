/**
 * References a person types, turned into the ids the API takes: a prompt by code (or UUID), a
 * team or department by name (or id). One helper per kind, so commands stay one call long.
 */
import {SvcError} from '../core/errors.js'
import type {DbView} from '../core/contract/dbs.js'
import type {PromptView} from '../core/prompts/types.js'
import type {Client} from './backend.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * A stored prompt id from a UUID or a code. A code stored in several scopes (your user copy and
 * the account's, say) is ambiguous unless `scope` picks one; the error lists them, and names
 * `pickFlag` (the command's own flag that picks a scope) only when the command has one.
 */
export async function resolvePromptId(client: Client, ref: string, scope?: string, pickFlag?: string): Promise<string> {
  if (UUID.test(ref)) return ref
  const found = (await client.call('listPrompts', {query: {code: ref, scope}})).filter((p) => p.code === ref)
  if (found.length === 1) return found[0]!.id
  if (found.length === 0) {
    throw new SvcError('not_found', 404, `no stored prompt with code "${ref}"${scope ? ` in scope ${scope}` : ''}`, undefined,
      'list them with: svc prompt list (system files are read with: svc prompt system CODE)')
  }
  const list = found.map((p) => `${p.id} (${p.scope}${p.scope_id === null ? '' : ` ${p.scope_id}`})`).join(', ')
  throw new SvcError('usage', 0, `code "${ref}" is stored in ${found.length} scopes: ${list}`, undefined,
    pickFlag ? `give the id, or ${pickFlag} to pick one` : 'give the id')
}

interface Me {
  team_ids: number[]
  team_names: string[]
  department_ids: number[]
  department_names: string[]
}

/**
 * `--scope-id`: a number is an id; a name is looked up among your own teams (scope team) or your
 * department (scope department), the groups a prompt of yours can be scoped to.
 */
export async function resolveScopeId(client: Client, value: string, scope: string | undefined): Promise<number> {
  if (/^\d+$/.test(value)) return Number(value)
  if (scope !== 'team' && scope !== 'department') {
    throw new SvcError('usage', 0, `--scope-id takes a number${scope === 'user' ? ' (a user id)' : ''}, got "${value}"`, undefined,
      'names are accepted with --scope team or --scope department')
  }
  const me = await client.call('getMe')
  const [ids, names] = scope === 'team' ? [me.team_ids, me.team_names] : [me.department_ids, me.department_names]
  const at = names.findIndex((n) => n.toLowerCase() === value.toLowerCase())
  if (at >= 0 && ids[at] !== undefined) return ids[at]!
  throw new SvcError('usage', 0, `no ${scope} named "${value}" among yours (${names.length ? names.map((n, i) => `${n} = ${ids[i]}`).join(', ') : 'none'})`,
    undefined, `pass the numeric ${scope} id`)
}

const isId = (ref: string) => /^\d+$/.test(ref)

/** The names of several matches, for an error that asks to pick one. */
const listed = (items: {id: number; code?: string | null; name: string}[]) =>
  items.map((i) => `${i.id}${i.code ? ` (${i.code})` : ''} "${i.name}"`).join(', ')

/**
 * A database from an id, a code or a name (a database created without `--code` has only its id
 * and name). The name is looked up only when no database has that id or code: an exact name
 * first, else one that differs only in case.
 */
export async function findDb(client: Client, ref: string): Promise<DbView> {
  try {
    return await client.call('getDb', {params: {id: ref}})
  } catch (error) {
    if (!(error instanceof SvcError) || error.code !== 'not_found') throw error
    if (isId(ref)) throw dbNotFound(ref)
  }
  const dbs = await client.call('listDbs')
  const exact = dbs.filter((d) => d.name === ref)
  const found = exact.length ? exact : dbs.filter((d) => d.name.toLowerCase() === ref.toLowerCase())
  if (found.length === 1) return found[0]!
  if (found.length > 1) throw new SvcError('usage', 0, `${found.length} databases are named "${ref}": ${listed(found)}`, undefined, 'give the id or the code')
  throw dbNotFound(ref)
}

const dbNotFound = (ref: string) => new SvcError('not_found', 404, isId(ref) ? `no database with id ${ref}` : `no database "${ref}" (looked up by id, code and name)`, undefined,
  'list them with: svc db list (a database is named by its id, its code, or its name)')

/** The id of a database named by id, code or name: ids go as they are, anything else is looked up once. */
export async function dbId(client: Client, ref: string): Promise<string> {
  return isId(ref) ? ref : String((await findDb(client, ref)).id)
}

/** A dashboard id from an id or a name (among the dashboards you see). */
export async function dashboardId(client: Client, ref: string): Promise<number> {
  if (isId(ref) && Number(ref) > 0) return Number(ref)
  const list = await client.call('listDashboards', {query: {}})
  const exact = list.filter((d) => d.name === ref)
  const found = exact.length ? exact : list.filter((d) => d.name.toLowerCase() === ref.toLowerCase())
  if (found.length === 1) return found[0]!.id
  if (found.length > 1) {
    throw new SvcError('usage', 0, `${found.length} dashboards are named "${ref}": ${found.map((d) => `#${d.id} (${d.context})`).join(', ')}`, undefined, 'give the id')
  }
  throw new SvcError('not_found', 404, `no dashboard "${ref}" (looked up by id and name)`, undefined, 'list them with: svc dashboard list')
}
