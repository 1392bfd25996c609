import type {TextRange} from '../../core/dbs/prefix-ranges.js'

/**
 * `column` in any of `ranges` (docs/dbs.md "Search"), the same SQL on both stores: a range each, so
 * the planner reads the column's index once per range (SQLite's multi-index OR, PostgreSQL's BitmapOr).
 */
export function inRanges(column: string, ranges: TextRange[]): {sql: string; params: string[]} {
  const params: string[] = []
  const terms = ranges.map(([from, to]) => {
    params.push(from)
    if (to === null) return `${column} >= ?`
    params.push(to)
    return `(${column} >= ? AND ${column} < ?)`
  })
  return {sql: `(${terms.join(' OR ')})`, params}
}
