/**
 * What an empty full-text search says about where `q` looked: the indexed fields, else the
 * fields the schema declares, else the whole record (the defaults of `buildQuery`). The CLI
 * (`svc db search`) and the MCP tool (`dbs_search`) say the same, each with its own way of
 * naming the option that looks elsewhere (`--search-in` / `search_in`).
 */
import {defaultSearchFields} from './query.js'
import {planSchema, tablePlan} from './schema.js'

export interface SearchedFields {
  /** The fields `q` looked in, or 'all' (each record's whole data). */
  fields: string[] | 'all'
  why: 'indexed' | 'declared' | 'all'
  /** The table's other declared fields, which `q` did not look in. */
  others: string[]
}

export function searchedFields(schema: unknown, table: string | null): SearchedFields {
  const plan = planSchema(schema)
  const tp = tablePlan(plan, table)
  const {fields, why} = defaultSearchFields(tp, plan.declared)
  const others = fields === 'all' ? [] : Object.keys(tp?.fields ?? {}).filter((f) => !fields.includes(f))
  return {fields, why, others}
}

/** The sentence: `q looked only in the indexed fields: name. To look in others: search_in=name,city`. */
export function searchedNote(s: SearchedFields, option: {q: string; searchIn: string; join: string}): string {
  if (s.fields === 'all') return `(${option.q} looked in all of each record's data)`
  return `${option.q} looked only in ${s.why === 'indexed' ? 'the indexed fields' : 'the fields of the schema'}: ${s.fields.join(', ')}.\n` +
    `To look in others: ${option.searchIn}${option.join}${[...s.fields, ...s.others].join(',')}${s.others.length ? '' : ',FIELD'}`
}
