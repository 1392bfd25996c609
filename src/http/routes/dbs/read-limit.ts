/**
 * The rate limits of anonymous public reads, at the transport: who the reader is (a signed-in
 * user of another account, the signed visitor cookie, the client address), the budgets' check
 * before the read (429 with `Retry-After`) and their charge after it, with the time it took.
 * Policy and defaults: src/core/dbs/public-reads.ts and the `public_read_ms_*` quotas; the
 * buckets: the store's cluster (in memory on SQLite, one table every PostgreSQL instance shares).
 */
import {performance} from 'node:perf_hooks'
import type {Context} from 'hono'
import {MIN_READ_CHARGE_MS, readBudgets, readRefusal, type ReadBudget} from '../../../core/dbs/public-reads.js'
import {quotasOf} from '../../../core/quotas.js'
import type {AppEnv, Deps} from '../../env.js'
import {visitorCookieKey} from './visitor-cookie.js'

export interface AdmittedRead {
  budgets: ReadBudget[]
  started: number
}

export function publicReadLimit(deps: Deps) {
  const quotas = quotasOf(deps.quotas)
  return {
    /**
     * Lets a public read of `db` through (what to charge once it ran), or throws the 429. A member
     * of the db's account is not limited (null): the private API reads the same records.
     */
    async admit(c: Context<AppEnv>, db: {id: number; account_id: number}, ip: string): Promise<AdmittedRead | null> {
      const user = c.get('user')
      if (user && user.accountId === db.account_id) return null
      const visitor = user ? `u:${user.id}` : await visitorCookieKey(c, deps).then((key) => (key ? `c:${key}` : ''))
      const budgets = readBudgets(quotas, {visitor, ip, dbId: db.id})
      if (!budgets.length) return null
      const refusal = readRefusal(budgets, await deps.store.cluster.budgetWaits(budgets))
      if (refusal) throw refusal
      return {budgets, started: performance.now()}
    },
    /**
     * Charges the read's time (at least MIN_READ_CHARGE_MS) to its budgets, whatever its answer
     * was. A charge the store cannot take (the database gone a moment) is dropped: the read's
     * answer stands.
     */
    async settle(read: AdmittedRead): Promise<void> {
      const ms = Math.max(MIN_READ_CHARGE_MS, performance.now() - read.started)
      await deps.store.cluster.spendBudgets(read.budgets, Math.round(ms * 1000) / 1000).catch((error: Error) => {
        deps.log?.(`public read limit: a charge was dropped (${error.message})`)
      })
    },
  }
}
