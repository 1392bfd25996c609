import {nextRun} from '../../../core/flows/crons.js'
import type {Deps} from '../../env.js'
import {flowEngine, runnerAlive} from './engine.js'

/** Runs due crons of every account. Started by `svc serve` only (never by the embedded CLI backend). */
export interface FlowScheduler {
  /** Reaps runs left pending by a dead process, then ticks every `intervalMs`. */
  start(): void
  /** Stops ticking and stops the flow engine (running flows get a grace period, then are aborted). */
  stop(): Promise<void>
  /** Starts every cron due at `now`; returns the ids of the flow processes started. */
  tick(now?: Date): Promise<string[]>
}

export interface SchedulerOptions {
  intervalMs?: number
  /** Ended runs kept per account (older ones are deleted once a minute). */
  keepRuns?: number
}

const DUE_BATCH = 100

export function createFlowScheduler(deps: Deps, options: SchedulerOptions = {}): FlowScheduler {
  const intervalMs = options.intervalMs ?? 1000
  const keepRuns = options.keepRuns ?? 5000
  const engine = flowEngine(deps)
  let timer: NodeJS.Timeout | undefined
  let current: Promise<unknown> | undefined
  let lastPrune = 0

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
      // Compare-and-set: another server on the same data file may have taken this occurrence.
      if (!(await deps.store.flows.claimCron(cron.id, cron.next_run_at!, next?.toISOString() ?? null, now.toISOString()))) continue
      if (cron.last_flow_process_id) {
        const previous = await deps.store.flows.getProcess(cron.account_id, cron.last_flow_process_id)
        if (previous?.status === 'pending') {
          const runner = (await deps.store.flows.pendingRuns(cron.account_id)).find((p) => p.id === previous.id)?.runner ?? null
          if (runnerAlive(runner, previous.id)) {
            deps.log?.(`cron ${cron.id}: the previous run ${previous.id} is still pending; this occurrence is skipped`)
            continue
          }
        }
      }
      try {
        const {process} = await engine.start({
          accountId: cron.account_id, flowCode: cron.target_code, input: {kind: 'cron', cron_id: cron.id}, trigger: 'cron', cronId: cron.id,
        })
        await deps.store.flows.setCronLastProcess(cron.account_id, cron.id, process.id, now.toISOString())
        started.push(process.id)
      } catch (error) {
        deps.log?.(`cron ${cron.id}: cannot start flow ${cron.target_code}: ${(error as Error).message}`)
      }
    }
    if (now.getTime() - lastPrune >= 60_000) {
      lastPrune = now.getTime()
      await deps.store.flows.pruneProcesses(keepRuns)
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
      engine.reapOrphans().catch((error) => deps.log?.(`flow scheduler: ${(error as Error).message}`))
      timer = setInterval(safeTick, intervalMs)
      timer.unref()
    },
    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      await current
      await engine.stop()
    },
    tick,
  }
}
