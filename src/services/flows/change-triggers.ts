/**
 * Flows on db changes (docs/flows.md "Flows on db changes"): tails the journal from a stored cursor
 * and starts one run of a trigger's flow per matching record change, with the change as its input.
 *
 * Once per change with N instances: the runs of a batch of entries are recorded in the same
 * transaction that moves the cursor past the batch, by compare-and-set (`claimChanges`): of N
 * instances that read the same entries one records their runs, the others find the cursor moved and
 * read on from there. Each run also claims its (trigger, journal position) by a unique key. A run
 * recorded by an instance that dies before it ends is ended as `interrupted` by the scheduler's
 * orphan check, as any run: never lost silently, never started twice.
 *
 * Woken by `poke()` (the HTTP layer calls it after each write request of this instance; nothing while the
 * server has no active trigger) and every `intervalMs` (other instances' writes on PostgreSQL, and the
 * embedded CLI's, which runs no service).
 */
import {changeInput, changeOf, triggerMatches, type ActiveDbTrigger} from '../../core/flows/db-triggers.js'
import {jsonBytes, type JsonObject} from '../../core/flows/data.js'
import type {Store} from '../../store/types.js'
import type {FlowRunner, RetryPolicy, StartRun} from './runner.js'

export interface ChangeTriggers {
  /** Starts polling (and answering pokes). */
  start(): void
  /** Stops; a pass under way finishes (the flow runner is stopped by its owner). */
  stop(): Promise<void>
  /** Something was committed here: read the journal soon (passes never overlap; pokes during one make one more). */
  poke(): void
  /** One pass to the journal's head: the ids of the runs this instance started. `moveIdle` (default true): move the cursor past changes that start nothing. */
  tick(moveIdle?: boolean): Promise<string[]>
}

export interface ChangeTriggerOptions {
  /** Poll interval; default 1000, or `SVC_CHANGE_POLL_MS` (50 ms to 60 s). */
  intervalMs?: number
  /** Journal entries read per claim. */
  batch?: number
  /** Runs this instance has started and not seen end, at most (default 32): past it, the changes wait in the journal. */
  maxInFlight?: number
  /** Connector retries of a run started by a change: default 4 attempts, 1 s then 2 s, 4 s (`SVC_CHANGE_RETRY_MS` sets the first wait). */
  retry?: RetryPolicy
  log?: (line: string) => void
}

/** `SVC_CHANGE_POLL_MS` (50 ms to 60 s), else 1000. */
export function changePollFromEnv(value = process.env.SVC_CHANGE_POLL_MS): number {
  const ms = Number(value)
  return Number.isInteger(ms) && ms >= 50 && ms <= 60_000 ? ms : 1000
}

/** The first wait between attempts: `SVC_CHANGE_RETRY_MS` (10 ms to 60 s, a test hook), else 1000. */
export function changeRetryFromEnv(value = process.env.SVC_CHANGE_RETRY_MS): number {
  const ms = Number(value)
  return Number.isInteger(ms) && ms >= 10 && ms <= 60_000 ? ms : 1000
}

const BATCH = 200
/**
 * Runs of this instance under way at most: a burst of changes (an import of 10,000 records into a db
 * with a trigger) waits in the journal rather than opening 10,000 connections at once.
 */
const MAX_IN_FLIGHT = 32
/** Batches per pass at most (a pass yields the event loop between its queries; the next pass goes on). */
const MAX_ROUNDS = 50

export function createChangeTriggers(store: Store, flowRunner: FlowRunner, options: ChangeTriggerOptions = {}): ChangeTriggers {
  const intervalMs = options.intervalMs ?? changePollFromEnv()
  const batch = options.batch ?? BATCH
  const retry = options.retry ?? {attempts: 4, backoffMs: changeRetryFromEnv()}
  const maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT
  let inFlight = 0
  let headChecked = false
  /** Active triggers on the whole server at the last pass (-1: not read yet). While none, pokes cost nothing: the poll moves the cursor. */
  let knownTriggers = -1
  let timer: NodeJS.Timeout | undefined
  let current: Promise<unknown> | undefined
  let again = false
  let stopped = false
  const fits = (input: JsonObject) => jsonBytes(input) <= flowRunner.limits.maxInputBytes
  /** The record as the records API answers it; null when the kept row cannot be read so (the run still starts: one bad entry never stops the cursor). */
  const recordOf = (state: Record<string, unknown> | null): JsonObject | null => {
    if (!state) return null
    try {
      return store.journal.view('record', state) as JsonObject
    } catch {
      return null
    }
  }

  /** The runs of the first entries whose runs fit in `room` (at least the first entry's), and the position of the last entry taken. */
  const runsOf = (triggers: ActiveDbTrigger[], entries: Awaited<ReturnType<Store['journal']['after']>>, room: number): {runs: StartRun[]; to: number} => {
    const runs: StartRun[] = []
    let to = entries[0]!.seq
    for (const e of entries) {
      const change = changeOf(e)
      const mine: StartRun[] = []
      if (change) {
        for (const t of triggers) {
          if (!triggerMatches(t, e, change)) continue
          const record = recordOf(e.state)
          mine.push({
            accountId: t.account_id, flowCode: t.target_code, input: changeInput(t, e, change, record, fits), trigger: 'db_change',
            dbTriggerId: t.id, changePos: e.seq, retry,
          })
        }
      }
      if (runs.length > 0 && runs.length + mine.length > room) break
      runs.push(...mine)
      to = e.seq
    }
    return {runs, to}
  }

  const tick = async (moveIdle = true): Promise<string[]> => {
    const started: string[] = []
    if (!headChecked) {
      // A store restored to an earlier time (`svc admin restore --at`) may hold a cursor past its journal: new changes
      // would take positions the cursor says were read. Once per start, such a cursor comes back to the head.
      const [from, head] = [await store.flows.changeCursor(), await store.flows.journalHead()]
      if (from > head) await store.flows.claimChanges(from, head, [])
      headChecked = true
    }
    for (let round = 0; round < MAX_ROUNDS && !stopped; round++) {
      const from = await store.flows.changeCursor()
      knownTriggers = (await store.flows.activeDbTriggers()).length
      if (knownTriggers === 0) {
        // Nothing to match: the cursor follows the head, so a trigger made later never walks old entries.
        const head = await store.flows.journalHead()
        if (head > from) await store.flows.claimChanges(from, head, [])
        break
      }
      const entries = await store.journal.after(from, batch)
      if (entries.length === 0) break
      // The triggers again, read after the entries: every entry matched was committed before, so a trigger
      // deleted or made inactive before a change commits never runs for it (one made after is told apart by its after_pos).
      const triggers = await store.flows.activeDbTriggers()
      const room = maxInFlight - inFlight
      if (room <= 0) break
      const {runs, to} = runsOf(triggers, entries, room)
      // Nothing to start in a short batch, woken by a write of this instance: the cursor moves at the next poll
      // (or when a batch fills), not with one more write per write.
      if (runs.length === 0 && !moveIdle && entries.length < batch) break
      const claimed = runs.length === 0
        ? (await store.flows.claimChanges(from, to, [])) ? [] : null
        : await flowRunner.startRecorded(runs, (rows) => store.flows.claimChanges(from, to, rows))
      // null: another instance moved the cursor first (it starts these runs); read on from where it is.
      if (claimed) {
        for (const one of claimed) {
          inFlight++
          // A run's end makes room: the changes waiting for it are read at once.
          void one.done.finally(() => {
            inFlight--
            pass(true)
          })
          started.push(one.process.id)
        }
      }
      if (claimed && entries.length < batch && to === entries[entries.length - 1]!.seq) break
    }
    return started
  }

  /** `poked`: woken by a write of this instance rather than by the poll. */
  const pass = (poked = false) => {
    if (stopped) return
    if (current) {
      again = true
      return
    }
    again = false
    current = tick(!poked)
      .catch((error) => options.log?.(`flows on db changes: ${(error as Error).message}`))
      .finally(() => {
        current = undefined
        if (again) pass(true)
      })
  }

  return {
    start() {
      if (timer || stopped) return
      timer = setInterval(() => pass(), intervalMs)
      timer.unref()
      pass()
    },
    async stop() {
      stopped = true
      if (timer) clearInterval(timer)
      timer = undefined
      await current
    },
    poke() {
      // No trigger anywhere: a write of this instance has nothing to start (a trigger made meanwhile sees the
      // changes after it, whenever the next poll reads them).
      if (timer && knownTriggers !== 0) pass(true)
    },
    tick,
  }
}
