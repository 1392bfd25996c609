/**
 * The cascade made visible: for one code and one user, every layer that defines it, which one
 * wins and why, what `<code>_extra` appends and the system file underneath — the same answer as
 * the render endpoint (it uses the same `pickStored`). Pure: the caller loads the prompts.
 */
import {EXTRA_SUFFIX, pickStored} from './cascade.js'
import type {Layer, PromptRecord, Viewer} from './types.js'

export interface ExplainedLayer {
  layer: Layer
  /** The team or department id of the layer (null for user, account and system). */
  scope_id: number | null
  /** The stored prompt of this layer; null for the system file. */
  prompt: {id: string; name: string; updated_at: string} | null
  wins: boolean
  why: string
}

export interface Explanation {
  code: string
  /** The layer that renders, or null when no layer defines the code (the render answers 404). */
  winner: Layer | null
  layers: ExplainedLayer[]
  /** The `<code>_extra` that is appended under "## Additional instructions", or null. */
  extra: {code: string; layer: Layer; prompt_id: string | null} | null
}

const ORDER: Record<string, number> = {user: 0, team: 1, department: 2, account: 3}

/**
 * `stored` are the prompts of `code` and `<code>_extra` the viewer can see; `system` says which
 * of the two codes has a system file.
 */
export function explainCascade(code: string, viewer: Viewer, stored: PromptRecord[], system: {main: boolean; extra: boolean}): Explanation {
  const extraCode = code + EXTRA_SUFFIX
  const mine = stored.filter((p) => p.accountId === viewer.accountId)
  const applies = (p: PromptRecord) =>
    p.scope === 'account' || (p.scope === 'user' && p.scopeId === viewer.userId)
    || (p.scope === 'team' && viewer.teamIds.includes(p.scopeId ?? -1))
    || (p.scope === 'department' && viewer.departmentIds.includes(p.scopeId ?? -1))
  const main = mine.filter((p) => p.code === code && applies(p))
    .sort((a, b) => ORDER[a.scope]! - ORDER[b.scope]! || (a.scopeId ?? 0) - (b.scopeId ?? 0))
  const won = pickStored(main, viewer)?.record ?? null
  const winner: Layer | null = won ? won.scope : system.main ? 'system' : null
  const firstTeam = [...viewer.teamIds].sort((a, b) => a - b).find((t) => main.some((p) => p.scope === 'team' && p.scopeId === t))

  const layers: ExplainedLayer[] = main.map((p) => {
    const wins = p === won
    let why: string
    if (wins) {
      why = p.scope === 'user' ? 'the user\'s own prompt comes first'
        : p.scope === 'team' ? `no user prompt; team ${p.scopeId} is the lowest-numbered of the user's teams that defines it`
          : p.scope === 'department' ? 'no user or team prompt; the user\'s department defines it'
            : 'no user, team or department prompt; the account layer applies'
    } else if (p.scope === 'team' && won?.scope === 'team') {
      why = `team ${firstTeam} comes first (the lowest team id wins)`
    } else {
      why = `overridden by the ${won!.scope} layer above it`
    }
    return {layer: p.scope, scope_id: p.scope === 'team' || p.scope === 'department' ? p.scopeId : null,
      prompt: {id: p.id, name: p.name, updated_at: p.updatedAt}, wins, why}
  })
  if (system.main) {
    layers.push({layer: 'system', scope_id: null, prompt: null, wins: winner === 'system',
      why: winner === 'system' ? 'no stored prompt defines the code; the system file applies' : `the system file underneath, overridden by the ${winner} layer`})
  }

  const extraHit = pickStored(mine.filter((p) => p.code === extraCode), viewer)
  const extra = extraHit ? {code: extraCode, layer: extraHit.layer, prompt_id: extraHit.record?.id ?? null}
    : system.extra ? {code: extraCode, layer: 'system' as Layer, prompt_id: null} : null
  return {code, winner, layers, extra: winner ? extra : null}
}
