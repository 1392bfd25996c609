import {readdir, readFile, stat} from 'node:fs/promises'
import {join} from 'node:path'
import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import {withSpinner} from '../../cli/spinner.js'
import {type Change, dataLoss, type DbDefinition, definitionOf, definitionProblem, describeChange, diffDb, type Usage} from '../../core/dbs/diff.js'
import {addInvalid, describeInvalid, emptyInvalidReport, type InvalidReport, recordCheck} from '../../core/dbs/invalid-records.js'
import {isSvcError, SvcError} from '../../core/errors.js'
import type {Client} from '../../client/backend.js'
import {operationRequest, readAnswer} from '../../client/typed.js'
import type {DbView, RecordView} from '../../core/contract/dbs.js'

interface Plan {
  file: string; definition: DbDefinition; current: DbView | null; changes: Change[]; loss: {change: Change; records: number}[]; invalid: InvalidReport
  /** The ETag of `current`: the apply sends it as If-Match, so a change made meanwhile is never overwritten (412). */
  etag: string | null
}

/** Pages through every record of a db (all tables, by id) and reports those the new schema would reject. */
async function invalidRecords(client: Client, db: DbView, changes: Change[], schema: DbDefinition['schema']): Promise<InvalidReport> {
  let report = emptyInvalidReport()
  const check = recordCheck(changes, schema)
  if (!check || db.records_count === 0) return report
  for (let after = 0; ;) {
    const page = await client.call('listRecords', {params: {db_id: db.id}, query: {after_id: after, limit: 100}})
    if (page.length === 0) return report
    report = addInvalid(report, check, page)
    after = page[page.length - 1]!.id
  }
}

async function definitions(path: string): Promise<{file: string; definition: DbDefinition}[]> {
  let files: string[]
  try {
    files = (await stat(path)).isDirectory()
      ? (await readdir(path)).filter((f) => f.endsWith('.json')).sort().map((f) => join(path, f))
      : [path]
  } catch (error) {
    throw new SvcError('usage', 0, `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  if (files.length === 0) throw new SvcError('usage', 0, `no .json files in ${path}`)
  return Promise.all(files.map(async (file) => {
    let value: unknown
    try {
      value = JSON.parse(await readFile(file, 'utf8'))
    } catch (error) {
      throw new SvcError('usage', 0, `${file} is not valid JSON: ${(error as Error).message}`)
    }
    const problem = definitionProblem(value)
    if (problem) throw new SvcError('usage', 0, `${file} ${problem}`)
    return {file, definition: value as DbDefinition}
  }))
}

export default class DbPush extends BackendCommand {
  static description = 'Create or update databases from JSON files (name, code, schema, public_methods): shows a typed diff, asks to confirm'
  static examples = ['<%= config.bin %> db push dbs/ --dry-run', '<%= config.bin %> db push contacts.json --yes', '<%= config.bin %> db push contacts.json --yes --force']
  static args = {path: Args.string({description: 'a definition file, or a folder of them', required: true})}
  static flags = {
    yes: Flags.boolean({char: 'y', description: 'apply without asking (required without a terminal)', default: false}),
    'dry-run': Flags.boolean({description: 'only show the diff', default: false}),
    force: Flags.boolean({description: 'allow dropping fields or tables that hold data, and schema changes that existing records fail ' +
      '(a db changed on the server after the diff is still never overwritten: If-Match is always sent)', default: false}),
  }

  async run() {
    const {args, flags} = await this.parse(DbPush)
    const client = await this.client(flags)
    const plans = await withSpinner('Comparing schemas and checking records', !this.jsonEnabled(), () => this.plan(client, args.path))
    return this.apply(client, plans, flags)
  }

  private async plan(client: Client, path: string): Promise<Plan[]> {
    const plans: Plan[] = []
    for (const {file, definition} of await definitions(path)) {
      let current: DbView | null = null
      let etag: string | null = null
      try {
        const {method, path: url, options} = operationRequest('getDb', {params: {id: definition.code}})
        const res = await client.raw(method, url, options)
        etag = res.headers.get('etag')
        current = await readAnswer(res) as DbView
      } catch (error) {
        if (!isSvcError(error) || error.code !== 'not_found') throw error
      }
      const changes = diffDb(current && definitionOf(current), definition)
      const drops = changes.some((c) => c.kind === 'field_removed' || c.kind === 'table_removed')
      const loss = current && drops ? dataLoss(changes, await client.call('getDbUsage', {params: {id: current.id}})) : []
      const invalid = current ? await invalidRecords(client, current, changes, definition.schema) : emptyInvalidReport()
      plans.push({file, definition, current, changes, loss, invalid, etag})
    }
    return plans
  }

  private async apply(client: Client, plans: Plan[], flags: {yes: boolean; 'dry-run': boolean; force: boolean}) {
    for (const p of plans) {
      this.say(`${p.definition.code} (${p.file}): ${p.changes.length ? `${p.changes.length} change(s)` : 'up to date'}`)
      for (const c of p.changes) this.say(`  ${describeChange(c)}`)
      for (const l of p.loss) this.say(`  ! ${describeChange(l.change).slice(2)} holds data in ${l.records} record(s)`)
      if (p.invalid.count) {
        this.say(`  ! ${p.invalid.count} record(s) would fail validation under the new schema:`)
        for (const f of p.invalid.first) this.say(`      ${describeInvalid(f)}`)
        const shown = new Set(p.invalid.first.map((f) => f.id)).size
        if (p.invalid.count > shown) this.say(`      ... and ${p.invalid.count - shown} more record(s)`)
      }
    }
    const summary = plans.map((p) => ({
      code: p.definition.code, file: p.file, create: !p.current, changes: p.changes, data_loss: p.loss, invalid_records: p.invalid,
    }))
    const pending = plans.filter((p) => p.changes.length)
    if (flags['dry-run'] || pending.length === 0) return {applied: false, dry_run: flags['dry-run'], databases: summary}
    const losses = pending.flatMap((p) => p.loss.map((l) => `${p.definition.code}: ${describeChange(l.change).slice(2)} (${l.records} records)`))
    const invalid = pending.filter((p) => p.invalid.count).map((p) => `${p.definition.code}: ${p.invalid.count} record(s) would fail validation (${p.invalid.first.map(describeInvalid).join(', ')})`)
    if ((losses.length || invalid.length) && !flags.force) {
      const reasons = [...(losses.length ? [`refusing to drop data: ${losses.join('; ')}`] : []), ...(invalid.length ? [`refusing to leave records invalid: ${invalid.join('; ')}`] : [])]
      const hint = `check the diff, then ${invalid.length ? 'fix the records or ' : ''}add --force to ${losses.length ? 'drop it' : 'apply it anyway'}`
      throw new SvcError('conflict', 409, reasons.join('. '), {databases: summary}, hint)
    }
    if (!(await confirmDestructive({yes: flags.yes, action: 'applying the schema changes',
      message: `Apply ${pending.length === 1 ? 'this change' : 'these changes'} to ${pending.length} database(s)?`}))) {
      this.say('Nothing changed.')
      return {applied: false, dry_run: false, databases: summary}
    }
    for (const p of pending) {
      const db = {name: p.definition.name, code: p.definition.code, schema: p.definition.schema ?? null, public_methods: p.definition.public_methods ?? {},
        ...(p.definition.app_id !== undefined ? {app_id: p.definition.app_id} : {}), ...(p.definition.fields !== undefined ? {fields: p.definition.fields} : {})}
      if (p.current) {
        try {
          await client.call('updateDb', {params: {id: p.current.id}, body: {db}, headers: p.etag ? {'if-match': p.etag} : {}})
        } catch (error) {
          if (!isSvcError(error) || error.status !== 412) throw error
          throw new SvcError('conflict', 412, `${p.definition.code} changed on the server after the diff was made: nothing was applied to it${pending.indexOf(p) ? ' (the databases before it were)' : ''}`,
            {code: p.definition.code}, 'run svc db push again to see the diff against the current version')
        }
      } else await client.call('createDb', {body: {db}})
      this.say(`${p.current ? 'Updated' : 'Created'} ${p.definition.code}`)
    }
    return {applied: true, dry_run: false, databases: summary}
  }
}
