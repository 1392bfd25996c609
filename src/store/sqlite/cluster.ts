/**
 * The cluster side of the SQLite store: one process over one data file (a second process — the
 * embedded CLI — writes rows but runs no crons and serves no public routes). Runs are named
 * `host:pid`; this process always leads; rate limits live in memory.
 */
import {hostname} from 'node:os'
import {RateLimiter} from '../../core/flows/rate-limit.js'
import {debtBuckets} from '../../core/budgets.js'
import {fixedWindows} from '../../core/quotas.js'
import type {ClusterRepo} from '../cluster/types.js'

export function sqliteCluster(): ClusterRepo {
  const buckets = new Map<string, RateLimiter>()
  /** Fixed windows per bucket (hit counts, byte budgets). */
  const windows = new Map<string, ReturnType<typeof fixedWindows>>()
  const windowsOf = (bucket: string) => {
    let found = windows.get(bucket)
    if (!found) windows.set(bucket, (found = fixedWindows()))
    return found
  }
  const budgets = debtBuckets()
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
      return windowsOf(bucket).add(key, 1, windowSeconds * 1000).total
    },
    async chargeWithin(bucket, key, amount, budget, windowSeconds) {
      return budget <= 0 || windowsOf(bucket).add(key, amount, windowSeconds * 1000, budget).added
    },
    async budgetWaits(hits) {
      return budgets.waits(hits)
    },
    async spendBudgets(hits, amount) {
      budgets.spend(hits, amount)
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
