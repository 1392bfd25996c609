import Table from 'cli-table3'

/** Renders rows as a plain table for a terminal. */
export function table(head: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  const t = new Table({head, style: {head: [], border: []}})
  for (const row of rows) t.push(row.map((v) => (v === null || v === undefined ? '' : String(v))))
  return t.toString()
}
