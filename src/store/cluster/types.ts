/**
 * What several `svc serve` instances over one database must agree on, beyond rows: who is alive
 * (a flow run's owner), who leads the periodic upkeep (prune, reap), the rate limits and budgets.
 * SQLite (`src/store/sqlite/cluster.ts`) is one process: its own pid, always the leader, limits
 * in memory. PostgreSQL (`src/store/pg/cluster.ts`): session advisory locks and an UNLOGGED table.
 */
import type {BudgetHit} from '../../core/budgets.js'

export interface ClusterRepo {
  /**
   * This instance's name, stored on each flow run it starts. SQLite: `host:pid`. PostgreSQL:
   * `pg:<key>`, the key of a session advisory lock this instance holds for as long as it lives.
   */
  readonly runner: string
  /**
   * Whether the instance named `runner` (not this one) still lives. A name this driver cannot
   * check (another host's pid under SQLite) counts as alive, so a live run is never reaped.
   */
  instanceAlive(runner: string): Promise<boolean>
  /**
   * Whether this instance leads the periodic upkeep (pruning ended runs, reaping orphaned ones,
   * expiring rate-limit rows). SQLite: always. PostgreSQL: the holder of one session advisory
   * lock; another instance takes over when the leader's connection ends.
   */
  lead(): Promise<boolean>
  /**
   * A token bucket per (`bucket`, `key`) shared by every instance: `capacity` at once, refilled at
   * `perMinute` a minute. Takes one token: 0 when allowed, else the whole seconds to wait (≥ 1).
   */
  takeToken(bucket: string, key: string, capacity: number, perMinute: number): Promise<number>
  /**
   * A fixed window per (`bucket`, `key`) shared by every instance: counts this hit and returns the
   * hits in the current window of `windowSeconds` (this one included).
   */
  countHit(bucket: string, key: string, windowSeconds: number): Promise<number>
  /**
   * A budget per (`bucket`, `key`) and fixed window of `windowSeconds`, shared by every instance:
   * charges `amount` when the window's total stays within `budget` and says true; otherwise charges
   * nothing and says false. Public writes charge their bytes here (per client address, per db).
   */
  chargeWithin(bucket: string, key: string, amount: number, budget: number, windowSeconds: number): Promise<boolean>
  /**
   * Budgets that may run into debt (src/core/budgets.ts), shared by every instance: for each hit,
   * the whole seconds until its bucket lets a hit through (0: now). Charges nothing.
   */
  budgetWaits(hits: readonly BudgetHit[]): Promise<number[]>
  /** Charges `amount` to every hit's bucket, into debt if need be (what a request cost once it ran). */
  spendBudgets(hits: readonly BudgetHit[], amount: number): Promise<void>
  /** Upkeep the leader runs now and then: forgets idle rate-limit rows. */
  expire(): Promise<void>
  /** Releases the locks and the session; idempotent. */
  close(): Promise<void>
}
