/**
 * Open connections per key (an account, a visitor, the server): what the feed quotas count
 * (docs/reliability.md; docs/realtime.md "Quotas"). In this process: each instance holds its own
 * streams, so each counts its own (a server-wide cap is per instance).
 */
export class ConnectionCounter {
  private readonly counts = new Map<string, number>()

  /** Open connections of `key`. */
  count(key: string): number {
    return this.counts.get(key) ?? 0
  }

  /**
   * Takes one connection of each key if every key is under its limit (0: no limit), all or none;
   * answers the function that gives them back (once), or the first key that is full.
   */
  acquire(limits: readonly (readonly [key: string, limit: number])[]): {release: () => void} | {full: string} {
    for (const [key, limit] of limits) if (limit > 0 && this.count(key) >= limit) return {full: key}
    for (const [key] of limits) this.counts.set(key, this.count(key) + 1)
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        for (const [key] of limits) {
          const n = this.count(key) - 1
          if (n > 0) this.counts.set(key, n)
          else this.counts.delete(key)
        }
      },
    }
  }
}
