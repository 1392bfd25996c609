/**
 * The plan of a db change, written once (`POST /svc/dbs/plan.json` computes it; `svc db push`,
 * `svc push` and the console's schema editor show it and act on it): the typed diff of the stored
 * definition and the proposed one, the data the change would drop (records holding a removed field
 * or table), and the stored records the new schema would reject. Pure: the route feeds it the usage
 * and the records, page by page.
 */
import {type Change, dataLoss, definitionOf, describeChange, diffDb, type DbDefinition, type Usage} from './diff.js'
import {addInvalid, describeInvalid, emptyInvalidReport, type InvalidField, type InvalidReport, recordCheck, type RecordCheck} from './invalid-records.js'

export type PlannedChange = Change & {text: string}

/** What `POST /svc/dbs/plan.json` answers. */
export interface DbPlan {
  /** The db the plan was made against (null: the definition creates a new db). */
  db_id: number | null
  /** The ETag of that db's version: an apply sends it as If-Match, so a change made since the plan is never overwritten. */
  etag: string | null
  create: boolean
  changes: PlannedChange[]
  /** Changes that drop a field or table holding data, with the number of records that hold it. */
  data_loss: {change: PlannedChange; records: number; text: string}[]
  /** Stored records the new schema would reject (count, and the first few failing fields). */
  invalid_records: {count: number; first: (InvalidField & {text: string})[]}
}

const planned = (c: Change): PlannedChange => ({...c, text: describeChange(c)})

/** The first step: the diff, and what the route must read to finish the plan (usage when a change drops something; records for the check). */
export function startPlan(current: DbDefinition | null, next: DbDefinition): {changes: Change[]; needsUsage: boolean; check: RecordCheck | null} {
  const changes = diffDb(current, next)
  const needsUsage = current !== null && changes.some((c) => c.kind === 'field_removed' || c.kind === 'table_removed')
  return {changes, needsUsage, check: current ? recordCheck(changes, next.schema) : null}
}

export {addInvalid, definitionOf, emptyInvalidReport}

/** The answer, from the diff, the usage read (if any) and the invalid records found. */
export function finishPlan(db: {id: number; etag: string} | null, changes: Change[], usage: Usage | null, invalid: InvalidReport): DbPlan {
  return {
    db_id: db?.id ?? null,
    etag: db?.etag ?? null,
    create: db === null,
    changes: changes.map(planned),
    data_loss: (usage ? dataLoss(changes, usage) : []).map((l) => ({change: planned(l.change), records: l.records, text: lossText(l.change, l.records)})),
    invalid_records: {count: invalid.count, first: invalid.first.map((f) => ({...f, text: describeInvalid(f)}))},
  }
}

/** `field message (text) (5 records)` */
const lossText = (c: Change, records: number) => `${describeChange(c).slice(2)} (${records} record${records === 1 ? '' : 's'})`

/** Distinct records among the first failing fields shown. */
export const shownRecords = (plan: Pick<DbPlan, 'invalid_records'>) => new Set(plan.invalid_records.first.map((f) => f.id)).size

/**
 * Why a push of these plans needs --force (one sentence per reason), or null: the one refusal of
 * every push command (`svc db push`, `svc push`; the console asks "Apply anyway").
 */
export function planRefusal(plans: {code: string; plan: DbPlan}[]): {message: string; hint: string} | null {
  const losses = plans.flatMap(({code, plan}) => plan.data_loss.map((l) => `${code}: ${l.text}`))
  const invalid = plans.filter(({plan}) => plan.invalid_records.count)
    .map(({code, plan}) => `${code}: ${plan.invalid_records.count} record(s) would fail validation (${plan.invalid_records.first.map((f) => f.text).join(', ')})`)
  if (!losses.length && !invalid.length) return null
  const reasons = [...(losses.length ? [`refusing to drop data: ${losses.join('; ')}`] : []), ...(invalid.length ? [`refusing to leave records invalid: ${invalid.join('; ')}`] : [])]
  return {message: reasons.join('. '), hint: `check the diff, then ${invalid.length ? 'fix the records or ' : ''}add --force to ${losses.length ? 'drop it' : 'apply it anyway'}`}
}

/** The lines a terminal shows for one db's plan (under its heading). */
export function planLines(plan: DbPlan): string[] {
  const out = plan.changes.map((c) => `  ${c.text}`)
  for (const l of plan.data_loss) out.push(`  ! ${describeChange(l.change).slice(2)} holds data in ${l.records} record(s)`)
  if (plan.invalid_records.count) {
    out.push(`  ! ${plan.invalid_records.count} record(s) would fail validation under the new schema:`)
    for (const f of plan.invalid_records.first) out.push(`      ${f.text}`)
    const shown = shownRecords(plan)
    if (plan.invalid_records.count > shown) out.push(`      ... and ${plan.invalid_records.count - shown} more record(s)`)
  }
  return out
}
