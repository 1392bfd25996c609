import {Cron} from 'croner'
import {CODE_RE} from './program.js'

/** As the API shows it: the contract's (src/core/contract/flows.ts). */
export type {CronView as CronJob} from '../contract/flows.js'
import type {CronCreate, CronPatch, CronView as CronJob} from '../contract/flows.js'

export interface CronWrite {
  kind: 'flow'
  target_code: string
  schedule: string
  timezone: string | null
  active: boolean
}

export const MAX_SCHEDULE = 200
export const MAX_TIMEZONE = 64

/** The next time a schedule fires strictly after `from`, or null when it never does. Throws on a bad schedule. */
export function nextRun(schedule: string, timezone: string | null, from: Date): Date | null {
  const job = new Cron(schedule, {paused: true, ...(timezone ? {timezone} : {})})
  try {
    return job.nextRun(from)
  } finally {
    job.stop()
  }
}

/** A schedule problem in words, or null when the schedule is usable (and never fires twice within `minIntervalSeconds`). */
export function scheduleProblem(schedule: string, timezone: string | null, now: Date, minIntervalSeconds = 0): string | null {
  try {
    let previous = nextRun(schedule, timezone, now)
    if (!previous) return 'never fires'
    // Six runs show the shortest gap of every pattern croner accepts (seconds, minutes, lists, steps).
    for (let i = 0; i < 6 && minIntervalSeconds > 1; i++) {
      const next = nextRun(schedule, timezone, previous)
      if (!next) break
      if (next.getTime() - previous.getTime() < minIntervalSeconds * 1000) {
        return `fires more often than once every ${minIntervalSeconds} s (the server's shortest cron interval)`
      }
      previous = next
    }
    return null
  } catch (error) {
    return `is not a valid cron expression: ${(error as Error).message.replace(/^Cron\w*:\s*/, '')}`.slice(0, 300)
  }
}

/** What is wrong with a time zone name (null when it is a known IANA zone). */
export function timezoneProblem(timezone: string): string | null {
  try {
    new Intl.DateTimeFormat('en', {timeZone: timezone})
    return null
  } catch {
    return 'is not a known IANA time zone'
  }
}

/** What the cron rules check a write against: the account's flows, the stored cron (PATCH), the server's shortest interval. */
export interface CronContext {
  flowExists(code: string): boolean
  existing?: CronJob
  minIntervalSeconds: number
  now: Date
}

/** A schedule as the schema keeps it: trimmed, runs of spaces as one. */
export const normalizeSchedule = (schedule: string) => schedule.trim().replace(/\s+/g, ' ')

const usableSchedule = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '' && v.length <= MAX_SCHEDULE
/** The time zone a write ends with: a usable one sent, null (sent null or blank), the stored one, or false when the sent one is invalid. */
function timezoneOf(v: unknown, existing?: CronJob): string | null | false {
  if (v === undefined) return existing?.timezone ?? null
  if (v === null || v === '') return null
  return typeof v === 'string' && v.length <= MAX_TIMEZONE && !timezoneProblem(v) ? v : false
}

/**
 * The cron rules that only code can say, over a body as the schema parsed it (an invalid member is
 * left as sent and skipped here): the target names a flow of the account, the schedule (with the
 * time zone, sent or stored) fires, and an active cron fires no more often than the server allows.
 */
export function cronRules(value: Record<string, unknown>, ctx: CronContext, add: (field: string, message: string) => void): void {
  const {existing} = ctx
  const target = value.target_code
  if (typeof target === 'string' && CODE_RE.test(target) && !ctx.flowExists(target)) add('target_code', 'names no flow (svc/custom_flow) of this account')
  const timezone = timezoneOf(value.timezone, existing)
  const sent = value.schedule
  const schedule = sent === undefined ? existing?.schedule ?? '' : usableSchedule(sent) ? normalizeSchedule(sent) : ''
  if (!schedule || timezone === false) return
  const problem = scheduleProblem(schedule, timezone, ctx.now)
  if (problem) return void add('schedule', problem)
  const active = typeof value.active === 'boolean' ? value.active : existing?.active ?? true
  // The shortest interval binds crons that run: an inactive one may keep any schedule until activated.
  const tooOften = active ? scheduleProblem(schedule, timezone, ctx.now, ctx.minIntervalSeconds) : null
  if (tooOften) add('schedule', tooOften)
}

/** The cron a create (no `existing`) or a PATCH writes, from a body its schema (and cronRules) accepted: absent members keep their value. */
export function cronData(input: CronCreate | CronPatch, existing?: CronJob): CronWrite {
  return {
    kind: 'flow',
    target_code: input.target_code ?? existing!.target_code,
    schedule: input.schedule ?? existing!.schedule,
    timezone: input.timezone === undefined ? existing?.timezone ?? null : input.timezone,
    active: input.active ?? existing?.active ?? true,
  }
}
