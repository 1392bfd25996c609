/**
 * The application layer: what runs beside requests and owns a lifecycle (docs/architecture.md
 * "Services"). One factory makes them for one server over one store — `svc serve`, the embedded
 * backend of the CLI (and so `svc app dev` over a data dir), and the tests' worlds — and `stop()`
 * ends them before the store closes: flow runs finish (or are aborted after a grace period) and
 * are recorded, render threads and compile workers end. Nothing here is module-level state: two
 * servers in one process each have their own flow runner, pools and policy.
 *
 * Routes reach a service through `deps.services`; a service never imports `src/http/`.
 */
import {quotasOf, type Quotas} from '../core/quotas.js'
import type {Store} from '../store/types.js'
import {appBuilds} from './compiles/app-builds.js'
import {createCompilePool, type CompileLimits, type CompilePool} from './compiles/compile-pool.js'
import {egressPolicy, type EgressPolicy} from './egress.js'
import {createFlowRunner, type FlowRunner, type FlowLimitOverrides} from './flows/runner.js'
import {createFlowScheduler, type FlowScheduler, type SchedulerOptions} from './flows/scheduler.js'
import {createRenders, type RenderOptions, type Renders} from './renders/renders.js'
import {createBackupSchedule, type BackupSchedule, type BackupScheduleOptions} from './backup/schedule.js'
import {journalRetention, type JournalRetention, type RetentionOptions} from './journal-retention.js'
import {createFeeds, type Feeds, type FeedsOptions} from './feeds/index.js'

export interface ServicesOptions {
  /** Quotas (src/core/quotas.ts): the compile pool's and render pool's sizes and the build cap come from here. */
  quotas?: Partial<Quotas>
  /** Hosts, addresses or CIDR ranges connectors may reach although private or loopback
   *  (`--allow-connector-hosts`; `*` for any). Default: public unicast addresses only (egress.ts). */
  allowConnectorHosts?: string[]
  /** Overrides of the flow runner's bounds (defaults in src/core/flows/limits.ts). */
  flowLimits?: FlowLimitOverrides
  /** Overrides of the render pool (over the quotas), or `inProcess` (the embedded CLI: one local user). */
  renders?: RenderOptions
  /** Overrides of the compile pool (over the quotas). */
  compiles?: Partial<CompileLimits>
  /** Run due crons (`svc serve` only, never the embedded CLI); `true` or the scheduler's options. */
  scheduler?: boolean | SchedulerOptions
  /** Prune the journal past its retention and purge the dbs deleted before it (`svc serve` only; the upkeep leader). */
  retention?: boolean | Omit<RetentionOptions, 'log'>
  /** Scheduled backups (`svc serve --backup-dir`; docs/backups.md); the upkeep leader makes them. */
  backups?: Omit<BackupScheduleOptions, 'lead' | 'log'>
  /** The live feeds' hub (intervals, for tests: docs/realtime.md). */
  feeds?: FeedsOptions
  /** One line per event; never given a token or a secret. Default: silent. */
  log?: (line: string, fields?: Record<string, string | number>) => void
}

export interface Services {
  /** Where connectors may go. */
  readonly egress: EgressPolicy
  /** Flow runs: started by routes (actions, run-now, the connector-backed flows) and by the scheduler. */
  readonly flows: FlowRunner
  /** Due crons, when this server runs them (`svc serve`); else null. */
  readonly scheduler: FlowScheduler | null
  /** Prompt renders off the event loop. */
  readonly renders: Renders
  /** The compile worker processes. */
  readonly compiles: CompilePool
  /** The build of an app write: compile, take from the cache or keep the stored one (app-builds.ts). */
  readonly builds: ReturnType<typeof appBuilds>
  /** The journal's retention, when this server runs it (`svc serve`); else null. */
  readonly retention: JournalRetention | null
  /** Scheduled backups, when configured; else null. */
  readonly backups: BackupSchedule | null
  /** Live feeds: the one journal reader of this instance (its hub), the open connections per key, the feed settings. */
  readonly feeds: Feeds
  /** Starts what runs by itself (the scheduler, retention, backups); the rest starts at first use. */
  start(): void
  /** Stops everything, in order: retention and backups, the scheduler, the flow runner (runs finish
   *  or are aborted, and are recorded), renders and compiles. Call it before the store closes. Idempotent. */
  stop(): Promise<void>
}

/** The services of one server over `store`. Nothing starts until `start()` or a first use. Throws on a bad allow-list entry. */
export function createServices(store: Store, options: ServicesOptions = {}): Services {
  const q = quotasOf(options.quotas)
  const egress = egressPolicy(options.allowConnectorHosts)
  const flows = createFlowRunner(store, {limits: options.flowLimits, egress, log: options.log})
  const scheduler = options.scheduler
    ? createFlowScheduler(store, flows, {...(options.scheduler === true ? {} : options.scheduler), log: options.log})
    : null
  const renders = createRenders(options.renders?.inProcess ? {inProcess: true} : {
    threads: q.render_threads, deadlineMs: q.render_deadline_ms, memoryMb: q.render_memory_mb, ...options.renders,
  })
  const compiles = createCompilePool({
    workers: q.compile_workers, timeoutMs: q.compile_timeout_ms, memoryMb: q.compile_memory_mb,
    queuePerAccount: q.compile_queue_per_account, ...options.compiles,
  })
  // The store's apps read at the call (a placeholder store, as the OpenAPI document's, has none).
  const builds = appBuilds({cachedBuild: (hash) => store.apps.cachedBuild(hash), saveBuild: (build) => store.apps.saveBuild(build)},
    q.app_build_bytes, compiles)
  const retention = options.retention
    ? journalRetention(store, {...(options.retention === true ? {} : options.retention), log: options.log})
    : null
  const backups = options.backups ? createBackupSchedule({...options.backups, lead: () => store.cluster.lead(), log: options.log}) : null
  const retentionDays = typeof options.retention === 'object' ? options.retention.days : undefined
  const feeds = createFeeds(store, {retentionDays, ...options.feeds, log: options.log})
  let stopping: Promise<void> | undefined
  return {
    egress, flows, scheduler, renders, compiles, builds, retention, backups, feeds,
    start() {
      if (stopping) return
      feeds.start()
      scheduler?.start()
      retention?.start()
      backups?.start()
    },
    stop() {
      stopping ??= (async () => {
        // Open event streams end first (a server's close waits for its connections).
        await feeds.stop().catch(() => undefined)
        // What reads or writes the store by itself ends first (a running backup finishes, a pruning slice ends).
        await Promise.all([retention?.stop(), backups?.stop()].map((p) => p?.catch(() => undefined)))
        await scheduler?.stop().catch((error) => options.log?.(`flow scheduler: ${(error as Error).message}`))
        await flows.stop().catch((error) => options.log?.(`flow runner: ${(error as Error).message}`))
        compiles.stop()
        await renders.stop().catch(() => undefined)
      })()
      return stopping
    },
  }
}
