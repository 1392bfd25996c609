/**
 * The lines of an NDJSON import, shared by `svc db import` (src/cli/ndjson.ts) and the console's
 * import: what one line becomes, and the batch 422 (`records[3].age`) read back as input lines.
 */
import {SvcError} from '../errors.js'

/** A line's value as a record to send: `{table_name, data}` (an export line too), or bare data. */
export function recordOfLine(value: unknown, lineNo: number, file: string): {table_name?: unknown; data: unknown} {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new SvcError('usage', 0, `line ${lineNo} of ${file} is not a JSON object`)
  const v = value as Record<string, unknown>
  return v.data !== undefined && typeof v.data === 'object' ? {table_name: v.table_name ?? null, data: v.data} : {data: v}
}

/** `records[3].age` of a batch's 422 → `line 1204: age must be an integer`. */
export function lineErrors(details: Record<string, unknown> | undefined, lines: number[]): string[] {
  const out: string[] = []
  for (const [key, messages] of Object.entries(details ?? {})) {
    const m = /^records\[(\d+)\]\.?(.*)$/.exec(key)
    const where = m ? `line ${lines[Number(m[1])] ?? '?'}${m[2] ? `: ${m[2]}` : ''}` : key
    out.push(`${where} ${Array.isArray(messages) ? messages.join(', ') : String(messages)}`)
  }
  return out
}
