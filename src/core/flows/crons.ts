import {Cron} from 'croner'
import {FieldErrorBag} from '../errors.js'
import {CODE_RE} from './program.js'

/** As the API shows it: the contract's (src/core/contract/flows.ts). */
export type {CronView as CronJob} from '../contract/flows.js'
import type {CronView as CronJob} from '../contract/flows.js'

export interface CronWrite {
  kind: 'flow'
  target_code: string
  schedule: string
  timezone: string | null
  active: boolean
}

const ALLOWED = ['kind', 'target_code', 'schedule', 'timezone', 'active']
const MAX_SCHEDULE = 200

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

function timezoneProblem(timezone: string): string | null {
  try {
    new Intl.DateTimeFormat('en', {timeZone: timezone})
    return null
  } catch {
    return 'is not a known IANA time zone'
  }
}

/**
 * Validates a cron POST (no `existing`) or PATCH. `flowExists` tells whether the account has a
 * flow with that code. Throws one 422 with every problem.
 */
export function validateCron(
  raw: Record<string, unknown>, flowExists: (code: string) => boolean, now: Date, existing?: CronJob, minIntervalSeconds = 0,
): CronWrite {
  const errors = new FieldErrorBag()
  for (const key of Object.keys(raw)) if (!ALLOWED.includes(key)) errors.add(key, 'is not a known field')
  if (raw.kind !== undefined && raw.kind !== 'flow') errors.add('kind', 'must be flow')

  let target = existing?.target_code ?? ''
  if (raw.target_code !== undefined || !existing) {
    if (typeof raw.target_code !== 'string' || raw.target_code === '') errors.add('target_code', "can't be blank")
    else if (!CODE_RE.test(raw.target_code)) errors.add('target_code', 'must be a flow code')
    else if (!flowExists(raw.target_code)) errors.add('target_code', 'names no flow (svc/custom_flow) of this account')
    else target = raw.target_code
  }

  let timezone = existing?.timezone ?? null
  if (raw.timezone !== undefined) {
    if (raw.timezone === null || raw.timezone === '') timezone = null
    else if (typeof raw.timezone !== 'string' || raw.timezone.length > 64) errors.add('timezone', 'must be an IANA time zone name')
    else {
      const problem = timezoneProblem(raw.timezone)
      if (problem) errors.add('timezone', problem)
      else timezone = raw.timezone
    }
  }

  let schedule = existing?.schedule ?? ''
  if (raw.schedule !== undefined || !existing) {
    if (typeof raw.schedule !== 'string' || raw.schedule.trim() === '') errors.add('schedule', "can't be blank")
    else if (raw.schedule.length > MAX_SCHEDULE) errors.add('schedule', `is too long (maximum is ${MAX_SCHEDULE} characters)`)
    else schedule = raw.schedule.trim().replace(/\s+/g, ' ')
  }
  if (schedule && !errors.fields.timezone) {
    const problem = scheduleProblem(schedule, timezone, now)
    if (problem) errors.add('schedule', problem)
  }

  let active = existing?.active ?? true
  if (raw.active !== undefined) {
    if (typeof raw.active !== 'boolean') errors.add('active', 'must be true or false')
    else active = raw.active
  }
  // The shortest interval binds crons that run: an inactive one may keep any schedule until activated.
  if (active && schedule && !errors.fields.schedule && !errors.fields.timezone) {
    const problem = scheduleProblem(schedule, timezone, now, minIntervalSeconds)
    if (problem) errors.add('schedule', problem)
  }
  errors.throwIfAny()
  return {kind: 'flow', target_code: target, schedule, timezone, active}
}
