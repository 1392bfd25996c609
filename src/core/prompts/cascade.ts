/** The cascade of `/svc/prompt/:code.md` over the stored prompts a user can see. Pure rules. */
import type {Layer, PromptRecord, Viewer} from './types.js'

export interface Resolved {
  layer: Layer
  content: string
  /** The stored prompt, or null for a system file. */
  record: PromptRecord | null
}

/**
 * The stored prompt that wins for `viewer` among `candidates` (all of one code): scope user with
 * the viewer's id, then a team of the viewer (the lowest team id wins), then the viewer's
 * department, then scope account. Null when none applies (the caller falls back to system files).
 */
export function pickStored(candidates: PromptRecord[], viewer: Viewer): Resolved | null {
  const mine = candidates.filter((p) => p.accountId === viewer.accountId)
  const user = mine.find((p) => p.scope === 'user' && p.scopeId === viewer.userId)
  if (user) return {layer: 'user', content: user.content, record: user}
  for (const teamId of [...viewer.teamIds].sort((a, b) => a - b)) {
    const team = mine.find((p) => p.scope === 'team' && p.scopeId === teamId)
    if (team) return {layer: 'team', content: team.content, record: team}
  }
  for (const departmentId of [...viewer.departmentIds].sort((a, b) => a - b)) {
    const department = mine.find((p) => p.scope === 'department' && p.scopeId === departmentId)
    if (department) return {layer: 'department', content: department.content, record: department}
  }
  const account = mine.find((p) => p.scope === 'account')
  if (account) return {layer: 'account', content: account.content, record: account}
  return null
}

export const EXTRA_SUFFIX = '_extra'
export const EXTRA_HEADING = '## Additional instructions'

/** The main content with the `<code>_extra` content appended after a blank line under its heading. */
export function withExtra(main: string, extra: string | null): string {
  if (extra === null) return main
  return `${main.replace(/\s+$/, '')}\n\n${EXTRA_HEADING}\n\n${extra.replace(/^\s*\n/, '').replace(/\s+$/, '')}\n`
}
