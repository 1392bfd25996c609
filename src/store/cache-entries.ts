/**
 * What both drivers' epoch caches keep: a bounded map of values read at a cache epoch. The drivers
 * differ only in how they read the epoch (sync in SQLite, a query in PostgreSQL).
 */
export class EpochEntries<V> {
  private readonly entries = new Map<string, {epoch: number; value: V}>()
  constructor(private readonly maxEntries: number) {}

  /** The value of `key` read at `epoch`, else undefined (a stale or missing entry is read again). */
  at(key: string, epoch: number): V | undefined {
    const hit = this.entries.get(key)
    return hit && hit.epoch === epoch ? hit.value : undefined
  }

  /** Keeps `value` as read at `epoch`; a missing one (null or undefined) is forgotten, not cached. */
  keep(key: string, epoch: number, value: V | null | undefined): V | null {
    if (value === null || value === undefined) {
      this.entries.delete(key)
      return null
    }
    if (this.entries.size >= this.maxEntries) this.entries.clear()
    this.entries.set(key, {epoch, value})
    return value
  }
}

/** `value` and everything in it made read-only: cached values are shared by every request. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
