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

const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - [...text].length))

/** Breaks a line into pieces of at most `width` characters, at a space when there is one; later pieces indented. */
export function wrap(text: string, width: number): string[] {
  const out: string[] = []
  let rest = [...text]
  let indent = ''
  let room = Math.max(1, width)
  while (rest.length > room) {
    let cut = room
    if (rest[room] !== ' ') {
      const space = rest.slice(0, room).lastIndexOf(' ')
      if (space > room / 3) cut = space
    }
    out.push(indent + rest.slice(0, cut).join('').trimEnd())
    rest = rest.slice(cut)
    while (rest[0] === ' ') rest = rest.slice(1)
    indent = '  '
    room = Math.max(1, width - indent.length)
  }
  out.push(indent + rest.join(''))
  return out
}

/**
 * Packs tiles into rows of four quarters (quarter 1, half 2, three_quarters 3, full 4; a tile that
 * does not fit in what is left of a row starts the next one) and draws each as a box whose width
 * is its share of `width` columns; long lines wrap inside their box.
 */
export function renderGrid(tiles: GridTile[], width: number): string {
  const quarter = Math.max(10, Math.floor(width / 4))
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
      return {inner, text: [tile.name, ...tile.lines].flatMap((line) => wrap(line, inner))}
    })
    const height = Math.max(...boxes.map((b) => b.text.length))
    out.push(boxes.map((b) => `┌${'─'.repeat(b.inner + 2)}┐`).join(''))
    for (let i = 0; i < height; i++) out.push(boxes.map((b) => `│ ${pad(b.text[i] ?? '', b.inner)} │`).join(''))
    out.push(boxes.map((b) => `└${'─'.repeat(b.inner + 2)}┘`).join(''))
  }
  return out.join('\n')
}
