import type {AccountsRepo} from './accounts/types.js'
import type {AppsRepo} from './apps/types.js'
import type {ClusterRepo} from './cluster/types.js'
import type {DashboardsRepo} from './dashboards/types.js'
import type {DbsRepo} from './dbs/types.js'
import type {FlowsRepo} from './flows/types.js'
import type {SqlJournalRepo} from './journal/repo.js'
import type {PromptsRepo} from './prompts/types.js'

/**
 * Everything http needs from storage: one interface, two drivers (`sqlite/` — the embedded
 * default — and `pg/`, for N instances over one PostgreSQL database). Every method is async.
 */
export interface Store {
  /** Which driver this is (what a person is told; nothing outside the store branches on it). */
  readonly driver: 'sqlite' | 'pg'
  readonly accounts: AccountsRepo
  readonly prompts: PromptsRepo
  readonly dashboards: DashboardsRepo
  readonly apps: AppsRepo
  readonly dbs: DbsRepo
  readonly flows: FlowsRepo
  /** Every write's entry (docs/history.md): history, restores, retention; `journal.context` says who writes. */
  readonly journal: SqlJournalRepo
  /** What N instances over one database agree on: run owners' liveness, the upkeep leader, shared rate limits. */
  readonly cluster: ClusterRepo
  /** Where files beside the database live (compile cache, ...). */
  readonly dataDir: string
  /**
   * Starts the background upkeep a long-running server does for this driver (SQLite: WAL
   * checkpoints off the event loop; PostgreSQL: none, the database checkpoints itself).
   */
  maintenance(options?: {log?: (line: string) => void}): Maintenance
  /**
   * The reads that may grow with the data, off the server's thread (SQLite: reader connections in
   * worker threads, src/store/sqlite/reader-pool.ts; PostgreSQL: nothing to do, its statements never
   * hold Node's thread). A long-running server starts it and stops it before the store closes;
   * unstarted, every read runs as before.
   */
  readers(): Readers
  /** Releases the connection(s); idempotent. */
  close(): Promise<void>
}

/** The reader threads of `Store.readers()`. */
export interface Readers {
  start(options?: {threads?: number; log?: (line: string) => void}): void
  stop(): Promise<void>
}

/** Background upkeep started by `Store.maintenance()`. */
export interface Maintenance {
  /** Ends it (before the store is closed). */
  stop(): Promise<void>
}
