/**
 * The rules of dashboard requests that only code can say; the route's schemas
 * (src/core/contract/dashboards.ts) check everything else. Pure.
 */
import {COMPANY_ONLY, DASHBOARD_ID_RE} from './names.js'
import type {FieldErrors} from '../errors.js'

/**
 * A PATCH against the stored dashboard: `context` and `shared` are set at creation (sending the
 * current value is accepted, so a fetched object can be sent back; another is "cannot be changed"),
 * and `is_default: true` is only for a company dashboard. Reads the raw `dashboard` envelope, so
 * its messages join the schema's in one 422 whatever the other members hold. Null when none.
 */
export function patchRules(d: Readonly<Record<string, unknown>>, current: {context: string; shared: boolean}): FieldErrors | null {
  const errors: FieldErrors = {}
  if (d.context !== undefined && d.context !== current.context) errors.context = ['cannot be changed']
  if (d.shared !== undefined && d.shared !== current.shared) errors.shared = ['cannot be changed']
  if (d.is_default === true && !current.shared) errors.is_default = [COMPANY_ONLY]
  return Object.keys(errors).length ? errors : null
}

/** The dashboard id of a path (`:id` without `.json`), or null when it is not one. */
export const pathId = (value: string): number | null => (DASHBOARD_ID_RE.test(value) ? Number(value) : null)
