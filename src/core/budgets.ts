/**
 * Budgets of an amount (milliseconds of server time, for public reads) per key, as token buckets
 * that may run into debt: `capacity` at once, refilled at `perMinute` a minute. A hit is let
 * through while its bucket holds anything (a balance above 0), and afterwards charged what it
 * really cost, which may take the balance below 0: the debt is repaid by the refill before the
 * next hit of that key passes. So a request whose cost is only known once it has run (the time a
 * scan took) is still bounded: a key gets `perMinute` of it a minute, whatever each request costs.
 *
 * The arithmetic is here, pure; the SQLite store keeps the buckets in memory (`debtBuckets`), the
 * PostgreSQL store in the rate-limit table every instance shares (src/store/pg/cluster.ts).
 */

/** One bucket a hit draws on. */
export interface BudgetHit {
  bucket: string
  key: string
  /** The most the bucket holds (and holds when new). */
  capacity: number
  /** Refill per minute. */
  perMinute: number
}

/** The balance of a bucket that held `balance` at `atMs`, refilled up to `nowMs`. */
export function refilled(hit: BudgetHit, balance: number, atMs: number, nowMs: number): number {
  return Math.min(hit.capacity, balance + Math.max(0, nowMs - atMs) * (hit.perMinute / 60_000))
}

/** Whole seconds until a bucket at `balance` holds more than 0 again (0 when it does now; at least 1 otherwise). */
export function secondsUntilPositive(hit: BudgetHit, balance: number): number {
  if (balance > 0) return 0
  const perMs = hit.perMinute / 60_000
  if (perMs <= 0) return 3600
  return Math.max(1, Math.ceil((-balance + 1e-3) / perMs / 1000))
}

/** Buckets in this process (the SQLite store: one process serves the public routes). */
export function debtBuckets(maxKeys = 50_000) {
  const buckets = new Map<string, {balance: number; at: number}>()
  const id = (hit: BudgetHit) => `${hit.bucket}\0${hit.key}`
  const balanceOf = (hit: BudgetHit, now: number) => {
    const found = buckets.get(id(hit))
    return found ? refilled(hit, found.balance, found.at, now) : hit.capacity
  }
  /** Forgets the entries of keys idle for an hour (any bucket in use refills within minutes); when still too many, all. */
  const prune = (now: number) => {
    for (const [k, v] of buckets) if (now - v.at > 3_600_000) buckets.delete(k)
    if (buckets.size > maxKeys) buckets.clear()
  }
  return {
    /** For each hit, the whole seconds until its bucket lets a hit through (0: now). Charges nothing. */
    waits(hits: readonly BudgetHit[], now = Date.now()): number[] {
      return hits.map((hit) => secondsUntilPositive(hit, balanceOf(hit, now)))
    },
    /** Charges `amount` to every hit's bucket, into debt if need be. */
    spend(hits: readonly BudgetHit[], amount: number, now = Date.now()): void {
      if (buckets.size > maxKeys) prune(now)
      for (const hit of hits) buckets.set(id(hit), {balance: balanceOf(hit, now) - amount, at: now})
    },
  }
}
