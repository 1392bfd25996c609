import {nextRun} from '../../core/flows/crons.js'
import type {Store} from '../../store/types.js'
import type {FlowRunner} from './runner.js'

/** Runs due crons of every account. Started by `svc serve` only (createServices' `scheduler` option; never by the embedded CLI backend). */
export interface FlowScheduler {
  /** Reaps runs left pending by a dead instance (on the leader), then ticks every `intervalMs`. */
  start(): void
  /** Stops ticking (a tick under way finishes); the flow runner is stopped by its owner (createServices). */
  stop(): Promise<void>
  /** Starts every cron due at `now`; returns the ids of the flow processes started. */
  tick(now?: Date): Promise<string[]>
}

export interface SchedulerOptions {
  /** Default 1000, or `SVC_SCHEDULER_TICK_MS` (a test hook: with a seconds schedule such as
   *  `* * * * * *`, the N-instance test sees many occurrences in a few seconds). */
  intervalMs?: number
  /** Ended runs kept per account (older ones are deleted once a minute). */
  keepRuns?: number
  /** One line per event. */
  log?: (line: string) => void
}

const DUE_BATCH = 100
/** How often the leader prunes ended runs and reaps runs whose instance died. */
const UPKEEP_MS = 60_000

/** `SVC_SCHEDULER_TICK_MS` (50 ms to 60 s), else 1000. */
export function schedulerTickFromEnv(value = process.env.SVC_SCHEDULER_TICK_MS): number {
  const ms = Number(value)
  return Number.isInteger(ms) && ms >= 50 && ms <= 60_000 ? ms : 1000
}

export function createFlowScheduler(store: Store, flowRunner: FlowRunner, options: SchedulerOptions = {}): FlowScheduler {
  const intervalMs = options.intervalMs ?? schedulerTickFromEnv()
  const keepRuns = options.keepRuns ?? 5000
  const deps = {store, log: options.log}
  let timer: NodeJS.Timeout | undefined
  let current: Promise<unknown> | undefined
  let lastUpkeep = 0

  const tick = async (now = new Date()): Promise<string[]> => {
    const started: string[] = []
    const due = await deps.store.flows.dueCrons(now.toISOString(), DUE_BATCH)
    for (const cron of due) {
      let next: Date | null = null
      try {
        next = nextRun(cron.schedule, cron.timezone, now)
      } catch {
        next = null
      }
      // Compare-and-set on (cron id, occurrence): another instance on the same database may have taken it.
      if (!(await deps.store.flows.claimCron(cron.id, cron.next_run_at!, next?.toISOString() ?? null, now.toISOString()))) continue
      if (cron.last_flow_process_id) {
        const previous = await deps.store.flows.getProcess(cron.account_id, cron.last_flow_process_id)
        if (previous?.status === 'pending') {
          const runner = (await deps.store.flows.pendingRuns(cron.account_id)).find((p) => p.id === previous.id)?.runner ?? null
          if (await flowRunner.runnerAlive(runner, previous.id)) {
            deps.log?.(`cron ${cron.id}: the previous run ${previous.id} is still pending; this occurrence is skipped`)
            continue
          }
        }
      }
      try {
        const {process} = await flowRunner.start({
          accountId: cron.account_id, flowCode: cron.target_code, input: {kind: 'cron', cron_id: cron.id}, trigger: 'cron', cronId: cron.id,
        })
        await deps.store.flows.setCronLastProcess(cron.account_id, cron.id, process.id, now.toISOString())
        started.push(process.id)
      } catch (error) {
        deps.log?.(`cron ${cron.id}: cannot start flow ${cron.target_code}: ${(error as Error).message}`)
      }
    }
    // Upkeep by one instance at a time (the leader: always this one on SQLite).
    if (now.getTime() - lastUpkeep >= UPKEEP_MS) {
      lastUpkeep = now.getTime()
      if (await deps.store.cluster.lead()) {
        await deps.store.flows.pruneProcesses(keepRuns)
        await flowRunner.reapOrphans()
        await deps.store.cluster.expire()
      }
    }
    return started
  }

  const safeTick = () => {
    if (current) return
    current = tick()
      .catch((error) => deps.log?.(`flow scheduler: ${(error as Error).message}`))
      .finally(() => (current = undefined))
  }

  return {
    start() {
      if (timer) return
      // Runs left pending by an instance that died are ended now (by the leader), then every minute.
      void (async () => {
        if (await deps.store.cluster.lead()) await flowRunner.reapOrphans()
      })().catch((error) => deps.log?.(`flow scheduler: ${(error as Error).message}`))
      timer = setInterval(safeTick, intervalMs)
      timer.unref()
    },
    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      await current
    },
    tick,
  }
}
