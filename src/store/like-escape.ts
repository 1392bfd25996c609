/** LIKE metacharacters of a literal escaped, for a pattern written with ESCAPE '\' (both drivers' LIKE). */
export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)
