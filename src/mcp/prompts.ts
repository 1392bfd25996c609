/**
 * The workspace's prompts as MCP prompts: one per code the caller can render, the one that wins the
 * cascade for that caller (their own, a team's, their department's, the account's, else the system
 * file), with arguments from the template's variables (core/prompts/arguments.ts).
 */
import type {Client} from '../client/backend.js'
import {promptArguments, type PromptArgument} from '../core/prompts/arguments.js'
import {pickStored} from '../core/prompts/cascade.js'
import type {PromptRecord} from '../core/prompts/types.js'

export interface CatalogPrompt {
  code: string
  name: string
  description: string
  /** The stored prompt that wins, or null for a system file. */
  id: string | null
  layer: string
  content: string
  arguments: PromptArgument[]
}

/**
 * A prompt as `prompts/list` shows it: its title, description and argument descriptions are
 * workspace text, inside the answer's boundary (`wrap`, boundary.ts inlineBoundary); its name (the
 * code) and argument names are identifiers the client sends back.
 */
export const promptDefinition = (p: CatalogPrompt, wrap: (text: string) => string) => ({
  name: p.code, title: wrap(p.name), description: wrap(p.description),
  arguments: p.arguments.map((a) => ({name: a.name, description: wrap(a.description), required: a.required})),
})

/** Every prompt the caller sees, by code, sorted by code. */
export async function promptCatalog(client: Client): Promise<CatalogPrompt[]> {
  const [me, stored, system] = await Promise.all([client.call('getMe'), client.call('listPrompts'), client.call('listSystemPrompts')])
  const viewer = {userId: me.id, accountId: me.account_id, teamIds: me.team_ids, departmentIds: me.department_ids}
  const byCode = new Map<string, PromptRecord[]>()
  for (const p of stored) {
    const record = {...p, accountId: me.account_id, scopeId: p.scope_id, createdById: p.created_by_id, createdAt: p.created_at, updatedAt: p.updated_at} as unknown as PromptRecord
    byCode.set(p.code, [...(byCode.get(p.code) ?? []), record])
  }
  const out: CatalogPrompt[] = []
  for (const [code, candidates] of byCode) {
    const winner = pickStored(candidates, viewer)
    if (!winner?.record) continue
    out.push({
      code, name: winner.record.name, id: winner.record.id, layer: winner.layer, content: winner.content,
      description: `${winner.record.name} (${winner.record.kind} prompt, ${winner.layer} scope)`,
      arguments: promptArguments(winner.content, (winner.record.fields as {arguments?: unknown} | undefined)?.arguments),
    })
  }
  const fromSystem = system.filter((s) => !byCode.has(s.code))
  const contents = await Promise.all(fromSystem.map((s) => client.call('getSystemPrompt', {params: {code: s.code}})))
  fromSystem.forEach((s, i) => {
    const content = String(contents[i])
    out.push({code: s.code, name: s.name, id: null, layer: 'system', content, description: `${s.name} (${s.kind} prompt, system)`, arguments: promptArguments(content)})
  })
  return out.sort((a, b) => a.code.localeCompare(b.code))
}
