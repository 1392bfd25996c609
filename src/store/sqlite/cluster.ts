/**
 * The cluster side of the SQLite store: one process over one data file (a second process — the
 * embedded CLI — writes rows but runs no crons and serves no public routes). Runs are named
 * `host:pid`; this process always leads; rate limits live in memory.
 */
import {hostname} from 'node:os'
import {RateLimiter} from '../../core/flows/rate-limit.js'
import {windowBudget} from '../../core/quotas.js'
import type {ClusterRepo} from '../cluster/types.js'

const MAX_WINDOW_KEYS = 50_000

export function sqliteCluster(): ClusterRepo {
  const buckets = new Map<string, RateLimiter>()
  const windows = new Map<string, Map<string, {start: number; count: number}>>()
  const budgets = new Map<string, ReturnType<typeof windowBudget>>()
  const runner = `${hostname()}:${process.pid}`
  return {
    runner,
    async instanceAlive(name) {
      return pidAlive(name)
    },
    async lead() {
      return true
    },
    async takeToken(bucket, key, capacity, perMinute) {
      const id = `${bucket}\0${capacity}\0${perMinute}`
      let limiter = buckets.get(id)
      if (!limiter) buckets.set(id, (limiter = new RateLimiter(capacity, perMinute)))
      return limiter.take(key, Date.now())
    },
    async countHit(bucket, key, windowSeconds) {
      const now = Date.now()
      const windowMs = windowSeconds * 1000
      let hits = windows.get(bucket)
      if (!hits) windows.set(bucket, (hits = new Map()))
      if (hits.size > MAX_WINDOW_KEYS) for (const [k, v] of hits) if (now - v.start >= windowMs) hits.delete(k)
      const entry = hits.get(key)
      if (!entry || now - entry.start >= windowMs) {
        hits.set(key, {start: now, count: 1})
        return 1
      }
      return ++entry.count
    },
    async chargeWithin(bucket, key, amount, budget, windowSeconds) {
      const id = `${bucket}\0${budget}\0${windowSeconds}`
      let within = budgets.get(id)
      if (!within) budgets.set(id, (within = windowBudget(budget, windowSeconds * 1000)))
      return within.take(key, amount)
    },
    async expire() {},
    async close() {},
  }
}

/** Whether `host:pid` names a live process: only knowable on this host (another host's counts as alive). */
export function pidAlive(runner: string): boolean {
  const at = runner.lastIndexOf(':')
  if (at < 0) return false
  const host = runner.slice(0, at)
  const pid = Number(runner.slice(at + 1))
  if (host !== hostname()) return true
  if (!Number.isInteger(pid) || pid <= 0) return false
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
