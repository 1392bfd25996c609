/**
 * A token bucket per key (client address): `capacity` requests at once, refilled at
 * `perMinute` a minute. Pure: the caller passes the clock.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, {tokens: number; at: number}>()

  constructor(
    readonly capacity: number,
    readonly perMinute: number,
    private readonly maxKeys = 10_000,
  ) {}

  /** Takes one token for `key`; returns 0 when allowed, else the seconds to wait. */
  take(key: string, nowMs: number): number {
    const rate = this.perMinute / 60_000
    let bucket = this.buckets.get(key)
    if (bucket) bucket.tokens = Math.min(this.capacity, bucket.tokens + (nowMs - bucket.at) * rate)
    else {
      if (this.buckets.size >= this.maxKeys) this.prune(nowMs)
      bucket = {tokens: this.capacity, at: nowMs}
      this.buckets.set(key, bucket)
    }
    bucket.at = nowMs
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return 0
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate / 1000))
  }

  /** Forgets full buckets (idle clients); when still too many, the oldest. */
  private prune(nowMs: number): void {
    const rate = this.perMinute / 60_000
    for (const [key, b] of this.buckets) if (b.tokens + (nowMs - b.at) * rate >= this.capacity) this.buckets.delete(key)
    if (this.buckets.size >= this.maxKeys) {
      const oldest = [...this.buckets.entries()].sort((a, b) => a[1].at - b[1].at).slice(0, Math.ceil(this.maxKeys / 10))
      for (const [key] of oldest) this.buckets.delete(key)
    }
  }
}
