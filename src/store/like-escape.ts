import type {TextMatch} from '../core/dbs/query.js'

/** LIKE metacharacters of a literal escaped, for a pattern written with ESCAPE '\' (both drivers' LIKE). */
export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

/** A match of core's query plan as a LIKE pattern with ESCAPE '\\' (a fragment: `%…%`). */
export function likePattern(match: TextMatch): string {
  const pattern = match.parts.map(likeEscape).join('%')
  return match.anchored ? pattern : `%${pattern}%`
}
