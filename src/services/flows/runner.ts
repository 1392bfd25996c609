import {randomUUID} from 'node:crypto'
import {setTimeout as sleep} from 'node:timers/promises'
import {FlowRunError, jsonBytes, type JsonObject} from '../../core/flows/data.js'
import {FLOW_LIMITS, type FlowLimits} from '../../core/flows/limits.js'
import type {FlowProcess, Trigger} from '../../core/flows/processes.js'
import {FLOW_KIND, type Resource} from '../../core/flows/resources.js'
import {runProgram} from '../../core/flows/run.js'
import type {Store} from '../../store/types.js'
import type {NewProcess} from '../../store/flows/types.js'
import {callAccountConnector, type ConnectorLimits} from './connector-client.js'
import {egressPolicy, type EgressPolicy} from '../egress.js'

export interface StartRun {
  accountId: number
  flowCode: string
  /** The flow, when the caller already has it; else looked up by code in the account. */
  flow?: Resource | null
  input: JsonObject
  trigger: Trigger
  cronId?: number | null
  /** The db trigger and the journal position of the change (trigger `db_change`). */
  dbTriggerId?: number | null
  changePos?: number | null
  /** Connector calls that fail on the way (no answer, a timeout, a 5xx, a 429) are tried again, up to `attempts` in all, waiting `backoffMs`, then twice that... */
  retry?: RetryPolicy
  appId?: string | null
  action?: string | null
  userId?: number | null
  /** The `X-Request-Id` of the request that started the run (none for a cron occurrence): in the run's log lines. */
  requestId?: string
}

export interface RetryPolicy {
  attempts: number
  backoffMs: number
}

/** Starts flow runs in the background, records them as flow processes, and stops them on close. */
export interface FlowRunner {
  readonly limits: FlowLimits
  /** Records a pending process and starts it; `done` settles with the ended process (never rejects). */
  start(run: StartRun): Promise<{process: FlowProcess; done: Promise<FlowProcess | null>}>
  /**
   * Starts runs whose pending rows `record` writes (in its own transaction, with whatever else must commit with
   * them: the change service's claim). When `record` answers false nothing starts and null is answered.
   */
  startRecorded(runs: StartRun[], record: (rows: NewProcess[]) => Promise<boolean>): Promise<{process: FlowProcess; done: Promise<FlowProcess | null>}[] | null>
  /** Starts a run and waits up to `waitMs` (default the action wait): the process, ended or still pending. */
  startAndWait(run: StartRun, waitMs?: number): Promise<FlowProcess>
  /** Waits up to `waitMs` for a started run: the process, ended or still pending. */
  settle(accountId: number, started: {process: FlowProcess; done: Promise<FlowProcess | null>}, waitMs?: number): Promise<FlowProcess>
  /** Ends as `error` the pending runs (of one account, or all) whose runner process is gone. */
  reapOrphans(accountId?: number): Promise<number>
  /** Whether the flow runner that started run `id` (named `runner` on its row) still lives. */
  runnerAlive(runner: string | null, id: string): Promise<boolean>
  /** Refuses new runs, lets running ones finish for up to `graceMs`, then aborts them. */
  stop(graceMs?: number): Promise<void>
}

/** The bounds a server may change (`--quota`, tests); the rest are core's FLOW_LIMITS. */
export type FlowLimitOverrides = Partial<Record<'actionWaitMs' | 'connectorTimeoutMs' | 'runTimeoutMs' | 'maxResponseBytes', number>>

export interface FlowRunnerOptions {
  limits?: FlowLimitOverrides
  /** Where connectors may go (src/services/egress.ts); default: public unicast addresses only. */
  egress?: EgressPolicy
  /** One line per event; never given a token or a secret. */
  log?: (line: string, fields?: Record<string, string | number>) => void
}

/**
 * A run's row names its runner as `<the store's instance name>/<runner id>`: the instance (`host:pid`
 * on SQLite, a PostgreSQL session) says whether the process lives, the runner id which runner of that
 * process runs it, so two servers in one process (tests, `svc app dev` beside a server) never take
 * each other's runs for orphans, without any state shared between them.
 */
const RUNNER_MARK = '/'

/** Starts flow runs in the background over `store`; one per server (made by createServices). */
export function createFlowRunner(store: Store, options: FlowRunnerOptions = {}): FlowRunner {
  return createRunner(store, options)
}

function createRunner(store: Store, options: FlowRunnerOptions): FlowRunner {
  const limits: FlowLimits & ConnectorLimits = {...FLOW_LIMITS, ...(options.limits ?? {}), egress: options.egress ?? egressPolicy()}
  const deps = {store, log: options.log}
  const stopper = new AbortController()
  const running = new Set<Promise<unknown>>()
  /** Runs in flight in this runner (known before their row exists). */
  const inFlightIds = new Set<string>()
  const runnerId = randomUUID().slice(0, 8)
  /** This runner's name on the rows of its runs. */
  const ownRunner = () => `${store.cluster.runner}${RUNNER_MARK}${runnerId}`
  let stopped = false

  const runnerAlive = async (name: string | null, id: string): Promise<boolean> => {
    if (!name) return false
    if (name === ownRunner()) return inFlightIds.has(id)
    const at = name.lastIndexOf(RUNNER_MARK)
    const instance = at < 0 ? name : name.slice(0, at)
    // Another flow runner of this process (or of this PostgreSQL session): it records its runs' ends when
    // it stops, so its runs are alive while the process is.
    if (instance === store.cluster.runner) return at >= 0
    return store.cluster.instanceAlive(instance)
  }

  /** A connector call, tried again per `retry` while it fails on the way and the run goes on. */
  const withRetry = async (retry: RetryPolicy | undefined, signal: AbortSignal, call: () => Promise<unknown>): Promise<unknown> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call()
      } catch (error) {
        if (!retry || attempt >= retry.attempts || !(error instanceof FlowRunError) || !error.retryable || signal.aborted) {
          if (retry && attempt > 1 && error instanceof FlowRunError) error.message = `${error.message} (after ${attempt} attempts)`
          throw error
        }
        await sleep(retry.backoffMs * 2 ** (attempt - 1), null, {signal}).catch(() => undefined)
        if (signal.aborted) throw error
      }
    }
  }

  const execute = async (accountId: number, process: FlowProcess, flow: Resource | null, input: JsonObject, requestId?: string, retry?: RetryPolicy): Promise<FlowProcess | null> => {
    const fields = requestId ? {request_id: requestId} : undefined
    const signal = AbortSignal.any([stopper.signal, AbortSignal.timeout(limits.runTimeoutMs)])
    let result: Parameters<typeof deps.store.flows.finishProcess>[2]
    try {
      if (!flow) throw new FlowRunError(`flow "${process.flow_code}" not found`)
      const run = await runProgram(flow.fields.program, input, {
        callConnector: (call, s, seen) => withRetry(retry, s, () => callAccountConnector(deps.store, accountId, call.connector, call.method, call.params, s, limits, seen, process.id)),
      }, limits, signal)
      result = {status: 'finished', output: run.data, error: null, steps: run.steps, trace: run.trace}
    } catch (error) {
      if (error instanceof FlowRunError) {
        result = {status: 'error', output: error.data ?? null, error: error.message, steps: error.steps ?? 0, trace: error.trace ?? null}
      } else {
        deps.log?.(`flow ${process.flow_code} run ${process.id} failed: ${(error as Error).message}`, fields)
        result = {status: 'error', output: null, error: 'internal error', steps: 0, trace: null}
      }
    }
    try {
      return await deps.store.flows.finishProcess(accountId, process.id, result)
    } catch (error) {
      deps.log?.(`flow run ${process.id}: cannot record its end: ${(error as Error).message}`, fields)
      return null
    }
  }

  const runner: FlowRunner = {
    limits,
    async start(run) {
      if (stopped) throw new Error('the flow runner is stopped')
      const flow = run.flow !== undefined ? run.flow : await deps.store.flows.findResource(run.accountId, FLOW_KIND, run.flowCode)
      if (jsonBytes(run.input) > limits.maxInputBytes) throw new FlowRunError(`the input is larger than ${limits.maxInputBytes} bytes`)
      // Known as in flight before its row exists, so a concurrent orphan check never takes it for dead.
      const id = randomUUID()
      inFlightIds.add(id)
      let process: FlowProcess
      try {
        process = await deps.store.flows.createProcess({
          id, accountId: run.accountId, flowId: flow?.id ?? null, flowCode: run.flowCode, trigger: run.trigger,
          cronId: run.cronId, appId: run.appId, action: run.action, userId: run.userId, input: run.input, runner: ownRunner(),
        })
      } catch (error) {
        inFlightIds.delete(id)
        throw error
      }
      const done = execute(run.accountId, process, flow, run.input, run.requestId, run.retry).finally(() => {
        inFlightIds.delete(process.id)
        running.delete(done)
      })
      running.add(done)
      return {process, done}
    },
    async startRecorded(runs, record) {
      if (stopped) throw new Error('the flow runner is stopped')
      const flows = new Map<string, Resource | null>()
      const rows: NewProcess[] = []
      const planned: {run: StartRun; flow: Resource | null; id: string}[] = []
      for (const run of runs) {
        const key = `${run.accountId}/${run.flowCode}`
        if (!flows.has(key)) flows.set(key, run.flow !== undefined ? run.flow : await deps.store.flows.findResource(run.accountId, FLOW_KIND, run.flowCode))
        const flow = flows.get(key)!
        const id = randomUUID()
        planned.push({run, flow, id})
        rows.push({
          id, accountId: run.accountId, flowId: flow?.id ?? null, flowCode: run.flowCode, trigger: run.trigger, cronId: run.cronId,
          dbTriggerId: run.dbTriggerId, changePos: run.changePos, appId: run.appId, action: run.action, userId: run.userId, input: run.input, runner: ownRunner(),
        })
      }
      // Known as in flight before their rows exist, so a concurrent orphan check never takes them for dead.
      for (const p of planned) inFlightIds.add(p.id)
      let recorded = false
      try {
        recorded = await record(rows)
      } finally {
        if (!recorded) for (const p of planned) inFlightIds.delete(p.id)
      }
      if (!recorded) return null
      const started: {process: FlowProcess; done: Promise<FlowProcess | null>}[] = []
      for (const {run, flow, id} of planned) {
        const process = await deps.store.flows.getProcess(run.accountId, id)
        if (!process) {
          inFlightIds.delete(id)
          continue
        }
        const done = execute(run.accountId, process, flow, run.input, run.requestId, run.retry).finally(() => {
          inFlightIds.delete(id)
          running.delete(done)
        })
        running.add(done)
        started.push({process, done})
      }
      return started
    },
    async startAndWait(run, waitMs = limits.actionWaitMs) {
      return runner.settle(run.accountId, await runner.start(run), waitMs)
    },
    async settle(accountId, {process, done}, waitMs = limits.actionWaitMs) {
      const timer = new AbortController()
      const ended = await Promise.race([done, sleep(waitMs, null, {signal: timer.signal}).catch(() => null)])
      timer.abort()
      return ended ?? (await deps.store.flows.getProcess(accountId, process.id)) ?? process
    },
    runnerAlive,
    async reapOrphans(accountId) {
      const pending = await deps.store.flows.pendingRuns(accountId)
      const dead: string[] = []
      for (const p of pending) if (!(await runnerAlive(p.runner, p.id))) dead.push(p.id)
      return deps.store.flows.interruptProcesses(dead, 'interrupted: the process running the flow ended before it finished')
    },
    async stop(graceMs = 5000) {
      stopped = true
      if (running.size) {
        const timer = new AbortController()
        await Promise.race([Promise.allSettled([...running]), sleep(graceMs, null, {signal: timer.signal}).catch(() => null)])
        timer.abort()
      }
      if (running.size) {
        stopper.abort(new Error('interrupted: the server stopped before the run ended'))
        await Promise.allSettled([...running])
      }
    },
  }
  return runner
}
