/** A point in time as the CLI takes it: ISO 8601, or an age (`90s`, `30m`, `2h`, `7d`) counted back from `now`. */
export function parseSince(value: string, now = Date.now()): string | null {
  const age = /^(\d{1,6})\s*(s|m|h|d)$/i.exec(value.trim())
  if (age) {
    const unit = {s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000}[age[2]!.toLowerCase() as 's' | 'm' | 'h' | 'd']
    return new Date(now - Number(age[1]) * unit).toISOString()
  }
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN
  return Number.isNaN(ms) ? null : new Date(ms).toISOString()
}
