/** Draws a layout as a text grid of boxes (`svc dashboard show`). Pure: no I/O. */
import {isSize, SIZE_UNITS} from './tiles.js'

export interface GridTile {
  name: string
  size: string
  /** Extra lines under the name (the tile's config). */
  lines: string[]
}

/** `scope: mine`, `hidden_counters: a, b` — one line per setting. */
export function configLines(config: Record<string, unknown> | undefined): string[] {
  if (!config) return []
  return Object.entries(config).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
}

const fit = (text: string, width: number) => {
  const chars = [...text]
  if (chars.length <= width) return text + ' '.repeat(width - chars.length)
  return chars.slice(0, Math.max(0, width - 1)).join('') + '…'
}

/**
 * Packs tiles into rows of four quarters (quarter 1, half 2, three_quarters 3, full 4; a tile that
 * does not fit in what is left of a row starts the next one) and draws each as a box whose width
 * is its share of `width` columns.
 */
export function renderGrid(tiles: GridTile[], width: number): string {
  const quarter = Math.max(6, Math.floor(width / 4))
  const rows: GridTile[][] = []
  let used = 4
  for (const tile of tiles) {
    const units = isSize(tile.size) ? SIZE_UNITS[tile.size] : 2
    if (used + units > 4) {
      rows.push([])
      used = 0
    }
    rows[rows.length - 1]!.push(tile)
    used += units
  }
  const out: string[] = []
  for (const row of rows) {
    const boxes = row.map((tile) => {
      const inner = quarter * (isSize(tile.size) ? SIZE_UNITS[tile.size] : 2) - 4
      return {inner, text: [tile.name, ...tile.lines]}
    })
    const height = Math.max(...boxes.map((b) => b.text.length))
    out.push(boxes.map((b) => `┌${'─'.repeat(b.inner + 2)}┐`).join(''))
    for (let i = 0; i < height; i++) out.push(boxes.map((b) => `│ ${fit(b.text[i] ?? '', b.inner)} │`).join(''))
    out.push(boxes.map((b) => `└${'─'.repeat(b.inner + 2)}┘`).join(''))
  }
  return out.join('\n')
}
