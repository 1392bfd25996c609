/**
 * References a person types, turned into the ids the API takes: a prompt by code (or UUID), a
 * team or department by name (or id). One helper per kind, so commands stay one call long.
 */
import {SvcError} from '../core/errors.js'
import type {PromptView} from '../core/prompts/types.js'
import type {Client} from './backend.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * A stored prompt id from a UUID or a code. A code stored in several scopes (your user copy and
 * the account's, say) is ambiguous unless `scope` picks one; the error lists them.
 */
export async function resolvePromptId(client: Client, ref: string, scope?: string): Promise<string> {
  if (UUID.test(ref)) return ref
  const found = (await client.get<PromptView[]>('/svc/prompts.json', {query: {code: ref, scope}})).filter((p) => p.code === ref)
  if (found.length === 1) return found[0]!.id
  if (found.length === 0) {
    throw new SvcError('not_found', 404, `no stored prompt with code "${ref}"${scope ? ` in scope ${scope}` : ''}`, undefined,
      'list them with: svc prompt list (system files are read with: svc prompt system CODE)')
  }
  const list = found.map((p) => `${p.id} (${p.scope}${p.scope_id === null ? '' : ` ${p.scope_id}`})`).join(', ')
  throw new SvcError('usage', 0, `code "${ref}" is stored in ${found.length} scopes: ${list}`, undefined, 'give the id, or --scope to pick one')
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
  const me = await client.get<Me>('/svc/me.json')
  const [ids, names] = scope === 'team' ? [me.team_ids, me.team_names] : [me.department_ids, me.department_names]
  const at = names.findIndex((n) => n.toLowerCase() === value.toLowerCase())
  if (at >= 0 && ids[at] !== undefined) return ids[at]!
  throw new SvcError('usage', 0, `no ${scope} named "${value}" among yours (${names.length ? names.map((n, i) => `${n} = ${ids[i]}`).join(', ') : 'none'})`,
    undefined, `pass the numeric ${scope} id`)
}
