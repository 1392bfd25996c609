/**
 * `svc db types`: TypeScript types of databases, from their schemas and public methods. Pure: a
 * list of dbs in, the text of one `.ts` file out (sorted by code, no time stamp, so `--check` can
 * compare it byte for byte with the file in the repository).
 *
 * Per db (a namespace named after its code) and per table:
 * - `Data`: a stored record's data. A `required` field is its type; any other field is optional and
 *   may be null (`validateData` leaves blank values unchecked). Fields the public methods fill
 *   (`auto_fields`, `default_values`) are optional members too. A free-form db is
 *   `{[field: string]: unknown}`.
 * - `Insert` / `Update`: what `createRecord` / `updateRecord` take (`Update`: every field optional).
 * - `Public.<method>`: the input and answer of each enabled public method: a create takes the
 *   allowed fields minus the server-filled `auto_fields`, required when `required_fields` or the
 *   schema says so and no `default_values` fills them.
 * And a `records(svc, code)` helper: the record calls of svc-api-client, typed by the db.
 */
import type {PublicMethods} from './public-methods.js'
import {methodOptions, PUBLIC_METHODS, SEARCH_PARAMS} from './public-methods.js'
import {type FieldType, planSchema, type TablePlan} from './schema.js'

export interface DbForTypes {
  code: string | null
  name: string
  schema: unknown
  public_methods: unknown
}

const TS_TYPE: Record<FieldType, string> = {
  string: 'string', text: 'string', integer: 'number', number: 'number', boolean: 'boolean',
  datetime: 'string', date: 'string', time: 'string',
}
const FORMAT: Partial<Record<FieldType, string>> = {
  integer: 'an integer', datetime: 'ISO 8601 date and time', date: 'YYYY-MM-DD', time: 'HH:MM[:SS]', text: 'long text',
}

/** A TypeScript identifier from a code: `guest-book` → `GuestBook`, `2024_sales` → `Db2024Sales`. */
export function typeName(code: string): string {
  const words = code.split(/[^A-Za-z0-9]+/).filter(Boolean)
  const name = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')
  return /^[A-Za-z_]/.test(name) ? name : `Db${name}`
}

const key = (name: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name))
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

interface Member {
  type: string
  optional: boolean
  nullable: boolean
  doc?: string
}

function objectType(members: Record<string, Member>, indent: string, open: boolean): string {
  const names = Object.keys(members)
  if (!names.length) return open ? '{[field: string]: unknown}' : 'Record<string, never>'
  const lines = names.map((n) => {
    const m = members[n]!
    const doc = m.doc ? `${indent}  /** ${m.doc} */\n` : ''
    return `${doc}${indent}  ${key(n)}${m.optional ? '?' : ''}: ${m.type}${m.nullable ? ' | null' : ''}`
  })
  return `{\n${lines.join('\n')}\n${indent}}`
}

/** The fields of a table as members: required ones required, the rest optional and nullable. */
function dataMembers(table: TablePlan | undefined, server: {auto: Set<string>; defaults: Set<string>}): Record<string, Member> {
  const out: Record<string, Member> = {}
  for (const [name, def] of Object.entries(table?.fields ?? {})) {
    out[name] = {type: TS_TYPE[def.type], optional: !def.required, nullable: !def.required, doc: FORMAT[def.type]}
  }
  // An auto_fields value is its rendered template (text); a default value may be anything.
  for (const name of server.auto) out[name] ??= {type: 'string', optional: true, nullable: false, doc: 'filled by the server in public calls (auto_fields)'}
  for (const name of server.defaults) out[name] ??= {type: 'unknown', optional: true, nullable: false, doc: 'a default of public creates (default_values)'}
  return out
}

/** Fields the public methods write themselves (auto_fields) or default (default_values). */
function serverFields(methods: PublicMethods): {auto: Set<string>; defaults: Set<string>} {
  const auto = new Set<string>()
  const defaults = new Set<string>()
  for (const m of PUBLIC_METHODS) {
    const o = methodOptions(methods, m)
    for (const f of Object.keys(o?.auto_fields ?? {})) auto.add(f)
    for (const f of Object.keys(isObject(o?.default_values) ? o!.default_values! : {})) defaults.add(f)
  }
  return {auto, defaults}
}

function publicTypes(methods: PublicMethods, table: TablePlan | undefined, declared: boolean, indent: string): string[] {
  const lines: string[] = []
  const fields = table?.fields ?? {}
  for (const m of PUBLIC_METHODS) {
    const o = methodOptions(methods, m)
    if (!o) continue
    const auto = new Set(Object.keys(o.auto_fields ?? {}))
    const writable = (o.allowed_fields ?? Object.keys(fields)).filter((f) => !auto.has(f))
    const required = new Set([...(o.required_fields ?? []), ...Object.keys(fields).filter((f) => fields[f]!.required)])
    const defaults = new Set(Object.keys(isObject(o.default_values) ? o.default_values : {}))
    const input = (allOptional: boolean) => {
      const members: Record<string, Member> = {}
      for (const f of writable) {
        const def = fields[f]
        const optional = allOptional || !required.has(f) || defaults.has(f)
        members[f] = {type: def ? TS_TYPE[def.type] : 'unknown', optional, nullable: optional && !!def && !def.required, doc: def ? FORMAT[def.type] : undefined}
      }
      const open = o.allowed_fields === undefined && !declared
      return objectType(members, indent, open)
    }
    const doc = (text: string) => `${indent}/** ${text} */`
    if (m === 'create') {
      lines.push(doc('`create`: the data a visitor sends (auto_fields are filled by the server, not sent).'))
      lines.push(`${indent}export type CreateInput = ${input(false)}`)
    } else if (m === 'update') {
      lines.push(doc('`update`: the fields a visitor may change, with the record `id`.'))
      lines.push(`${indent}export type UpdateInput = ${input(true)}`)
    } else if (m === 'search') {
      const params = (o.allowed_params ?? [...SEARCH_PARAMS]).filter((p) => (SEARCH_PARAMS as readonly string[]).includes(p))
      const types: Record<string, string> = {q: 'string', limit: 'number', offset: 'number', sort: 'string', table_name: 'string'}
      lines.push(doc('`search`: the parameters it allows.'))
      lines.push(`${indent}export type SearchParams = {${params.map((p) => ` ${p}?: ${types[p]}`).join(';')}${params.length ? ' ' : ''}}`)
    }
  }
  const enabled = PUBLIC_METHODS.filter((m) => methodOptions(methods, m))
  lines.push(doc2(indent, `The public methods enabled: ${enabled.length ? enabled.join(', ') : 'none'}.`))
  lines.push(`${indent}export type Methods = ${enabled.length ? enabled.map((m) => JSON.stringify(m)).join(' | ') : 'never'}`)
  const answer: Record<string, string> = {
    list: 'PublicRecord<Data>[]', search: 'PublicRecord<Data>[]', get: 'PublicRecord<Data>', create: 'PublicRecord<Data>',
    update: 'PublicRecord<Data>', delete: '{id: number; deleted: true}',
    // A stream (docs/realtime.md): the data of one event — the record of a create or update, `{id, table_name}` of a delete.
    subscribe: 'PublicRecord<Data> | {id: number; table_name: string | null}',
  }
  lines.push(doc2(indent, 'What each enabled method answers (the records are the visitor\'s scope when `scope_by` is set).'))
  lines.push(`${indent}export interface Answers {${enabled.map((m) => ` ${m}: ${answer[m]}`).join(';')}${enabled.length ? ' ' : ''}}`)
  return lines
}
const doc2 = (indent: string, text: string) => `${indent}/** ${text} */`

function tableTypes(table: TablePlan | undefined, declared: boolean, server: {auto: Set<string>; defaults: Set<string>}, methods: PublicMethods, indent: string): string[] {
  const data = dataMembers(table, server)
  // What a create takes: the server fills auto_fields (in public calls), so they are left out, as Supabase leaves out generated columns.
  const insert: Record<string, Member> = {}
  for (const [n, m] of Object.entries(data)) if (!server.auto.has(n) || table?.fields[n]?.required) insert[n] = m
  const update: Record<string, Member> = {}
  for (const [n, m] of Object.entries(data)) update[n] = {...m, optional: true}
  return [
    `${indent}/** A stored record's data. */`,
    `${indent}export type Data = ${objectType(data, indent, !declared)}`,
    `${indent}/** What createRecord takes as \`data\`. */`,
    `${indent}export type Insert = ${objectType(insert, indent, !declared)}`,
    `${indent}/** What updateRecord takes as \`data\` (merged over the stored record). */`,
    `${indent}export type Update = ${objectType(update, indent, !declared)}`,
    `${indent}/** The public methods (\`/svc/db/CODE/METHOD\`). */`,
    `${indent}export namespace Public {`,
    ...publicTypes(methods, table, declared, `${indent}  `),
    `${indent}}`,
  ]
}

/** The text of the generated file for `dbs` (those without a code are skipped: they have no stable name). */
export function dbTypesFile(dbs: DbForTypes[], options: {clientModule?: string} = {}): string {
  const coded = dbs.filter((d): d is DbForTypes & {code: string} => typeof d.code === 'string' && d.code !== '')
    .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))
  const client = options.clientModule ?? 'svc-api-client'
  const out: string[] = [
    `// Generated by \`svc db types\` from the schemas of: ${coded.map((d) => d.code).join(', ') || '(no databases)'}.`,
    '// Do not edit: run `svc db types … --out FILE` again; `svc db types … --out FILE --check` exits 1 when it is stale.',
    `import type {SvcClient} from '${client}'`,
    '',
    '/** A record as the API answers it, its data typed by its database. */',
    'export interface DbRecord<D> {',
    '  id: number',
    '  table_name: string | null',
    '  data: D',
    '  created_at: string',
    '  updated_at: string',
    '}',
    '/** A record as public methods answer it. */',
    'export interface PublicRecord<D> {',
    '  id: number',
    '  data: D',
    '  created_at: string',
    '  updated_at: string',
    '}',
    '',
  ]
  const map: string[] = []
  for (const db of coded) {
    const plan = planSchema(db.schema)
    const methods = (isObject(db.public_methods) ? db.public_methods : {}) as PublicMethods
    const server = serverFields(methods)
    const ns = typeName(db.code)
    out.push(`/** ${db.name.replace(/\*\//g, '* /')} (\`${db.code}\`)${plan.multi ? `: tables ${[...plan.tables.keys()].join(', ')}` : ''}. */`)
    out.push(`export namespace ${ns} {`)
    out.push(`  export const code = ${JSON.stringify(db.code)}`)
    if (plan.multi) {
      out.push(`  export type TableName = ${[...plan.tables.keys()].map((t) => JSON.stringify(t)).join(' | ') || 'never'}`)
      for (const [name, table] of plan.tables) {
        out.push(`  export namespace ${typeName(name)} {`, `    export const table_name = ${JSON.stringify(name)}`)
        out.push(...tableTypes(table, true, server, methods, '    '))
        out.push('  }')
      }
      out.push(`  export type Data = ${[...plan.tables.keys()].map((t) => `${typeName(t)}.Data`).join(' | ') || 'never'}`)
      out.push(`  export type Insert = ${[...plan.tables.keys()].map((t) => `${typeName(t)}.Insert`).join(' | ') || 'never'}`)
      out.push(`  export type Update = ${[...plan.tables.keys()].map((t) => `${typeName(t)}.Update`).join(' | ') || 'never'}`)
    } else {
      out.push(...tableTypes(plan.tables.get(''), plan.declared, server, methods, '  '))
    }
    out.push('}', '')
    map.push(`  ${key(db.code)}: {Data: ${ns}.Data; Insert: ${ns}.Insert; Update: ${ns}.Update}`)
  }
  out.push(
    '/** Every database above by code. */',
    `export interface Dbs ${map.length ? `{\n${map.join('\n')}\n}` : '{}'}`,
    '',
    'type RecordCalls = Pick<SvcClient, \'listRecords\' | \'getRecord\' | \'createRecord\' | \'updateRecord\' | \'deleteRecord\'>',
    'type ListQuery = {limit?: number; offset?: number; after_id?: number; sort?: string; table_name?: string}',
    '',
    '/** The record calls of a client, typed by the database `code`: `records(svc, \'leads\').create({name: \'Ada\'})`. */',
    'export function records<C extends keyof Dbs & string>(svc: RecordCalls, code: C) {',
    '  type T = Dbs[C]',
    '  const db_id = code',
    '  return {',
    '    list: async (query: ListQuery = {}) => (await svc.listRecords({params: {db_id}, query})) as DbRecord<T[\'Data\']>[],',
    '    get: async (id: number) => (await svc.getRecord({params: {db_id, id}})) as DbRecord<T[\'Data\']>,',
    '    create: async (data: T[\'Insert\'], table_name?: string) =>',
    '      (await svc.createRecord({params: {db_id}, body: {record: {data: data as {[field: string]: unknown}, ...(table_name ? {table_name} : {})}}})) as DbRecord<T[\'Data\']>,',
    '    update: async (id: number, data: T[\'Update\']) =>',
    '      (await svc.updateRecord({params: {db_id, id}, body: {record: {data: data as {[field: string]: unknown}}}})) as DbRecord<T[\'Data\']>,',
    '    delete: async (id: number) => { await svc.deleteRecord({params: {db_id, id}}) },',
    '  }',
    '}',
    '',
  )
  return out.join('\n')
}
