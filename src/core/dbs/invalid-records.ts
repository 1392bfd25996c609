/**
 * Stored records that a schema change would leave invalid (`svc db push`). Pure: the command
 * pages the records and feeds them here.
 */
import {FieldErrorBag} from '../errors.js'
import type {Change} from './diff.js'
import {validateData, type Data} from './records.js'
import {planSchema, tablePlan, type SchemaPlan} from './schema.js'

/** One field of one stored record that fails the new schema. */
export interface InvalidField {
  id: number
  table_name: string | null
  field: string
  message: string
}

/** How many records fail, and the first few failing fields (in record id order). */
export interface InvalidReport {
  count: number
  first: InvalidField[]
}

/** What to check: the new plan and, per table (key '' for a single-table db), the fields a change touched. */
export interface RecordCheck {
  plan: SchemaPlan
  fields: Map<string, Set<string>>
}

export const INVALID_SHOWN = 5

/**
 * The check for the changes of a push, or null when none of them can make a stored record
 * invalid. Only a field that is added (stored free-form data may already hold it), retyped or
 * made required can; a record is judged only on those fields, so a push is never blamed for
 * a value it does not touch.
 */
export function recordCheck(changes: Change[], nextSchema: Record<string, unknown> | null | undefined): RecordCheck | null {
  const fields = new Map<string, Set<string>>()
  for (const c of changes) {
    const touched = c.kind === 'field_added' || c.kind === 'field_retyped' || (c.kind === 'field_required' && c.required)
    if (!touched) continue
    const key = c.table ?? ''
    let set = fields.get(key)
    if (!set) fields.set(key, (set = new Set()))
    set.add(c.field)
  }
  if (fields.size === 0) return null
  return {plan: planSchema(nextSchema ?? null), fields}
}

/** The failing fields of one stored record under the check (empty when it passes). */
export function invalidFields(check: RecordCheck, record: {id: number; table_name: string | null; data: Data}): InvalidField[] {
  const key = check.plan.multi ? record.table_name : ''
  if (key === null) return []
  const touched = check.fields.get(key)
  const table = tablePlan(check.plan, check.plan.multi ? key : null)
  if (!touched || !table) return []
  const bag = new FieldErrorBag()
  const data = record.data !== null && typeof record.data === 'object' && !Array.isArray(record.data) ? record.data : {}
  validateData(table, data, bag)
  const out: InvalidField[] = []
  for (const [field, messages] of Object.entries(bag.fields)) {
    if (!touched.has(field)) continue
    for (const message of messages) out.push({id: record.id, table_name: record.table_name, field, message})
  }
  return out
}

export const emptyInvalidReport = (): InvalidReport => ({count: 0, first: []})

/** Adds one page of records to a report (returns a new report; keeps the first `shown` failing fields). */
export function addInvalid(
  report: InvalidReport, check: RecordCheck, page: {id: number; table_name: string | null; data: Data}[], shown = INVALID_SHOWN,
): InvalidReport {
  let {count} = report
  const first = [...report.first]
  for (const record of page) {
    const bad = invalidFields(check, record)
    if (bad.length === 0) continue
    count++
    for (const f of bad) if (first.length < shown) first.push(f)
  }
  return {count, first}
}

/** `#12 products.stock: must be an integer` */
export const describeInvalid = (f: InvalidField): string => `#${f.id} ${f.table_name === null ? '' : `${f.table_name}.`}${f.field}: ${f.message}`
