import {existsSync} from 'node:fs'
import {readdir, readFile, stat} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import {withSpinner} from '../../cli/spinner.js'
import {type DbDefinition, definitionProblem} from '../../core/dbs/diff.js'
import {type DbPlan, planLines, planRefusal} from '../../core/dbs/plan.js'
import {isSvcError, SvcError} from '../../core/errors.js'
import {dbResource} from '../../core/workspace/resources.js'
import type {Client} from '../../client/backend.js'
import type {DbView} from '../../core/contract/dbs.js'
import {dbWriteBody, planDb} from '../../workspace/db-plan.js'
import {SYNC_FILE, SyncState} from '../../workspace/sync-state.js'

interface Plan {file: string; text: string; definition: DbDefinition; plan: DbPlan}

/**
 * The definition files of a path: a file, a folder of `*.json` (dotfiles such as `.svc-sync.json`
 * are not definitions), or a workspace folder (its `dbs/`).
 */
async function definitions(path: string): Promise<{file: string; text: string; definition: DbDefinition}[]> {
  let files: string[]
  try {
    let dir = (await stat(path)).isDirectory() ? path : null
    if (dir && existsSync(join(dir, 'dbs')) && (await stat(join(dir, 'dbs'))).isDirectory()) dir = join(dir, 'dbs')
    files = dir ? (await readdir(dir)).filter((f) => f.endsWith('.json') && !f.startsWith('.')).sort().map((f) => join(dir, f)) : [path]
  } catch (error) {
    throw new SvcError('usage', 0, `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  if (files.length === 0) throw new SvcError('usage', 0, `no .json files in ${path}`)
  return Promise.all(files.map(async (file) => {
    const text = await readFile(file, 'utf8')
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      throw new SvcError('usage', 0, `${file} is not valid JSON: ${(error as Error).message}`)
    }
    const problem = definitionProblem(value)
    if (problem) throw new SvcError('usage', 0, `${file} ${problem}`)
    return {file, text, definition: value as DbDefinition}
  }))
}

/** The synced state of the workspace a definition file belongs to (`<ws>/dbs/<code>.json` of a synced workspace), else null. */
async function workspaceState(client: Client, file: string, code: string): Promise<SyncState | null> {
  const root = dirname(dirname(file))
  if (basename(dirname(file)) !== 'dbs' || basename(file) !== `${code}.json` || !existsSync(join(root, SYNC_FILE))) return null
  return SyncState.load(root, client.backend.description)
}

export default class DbPush extends BackendCommand {
  static description = 'Create or update databases from JSON files (name, code, schema, public_methods): shows a typed diff, asks to confirm'
  static examples = ['<%= config.bin %> db push dbs/ --dry-run', '<%= config.bin %> db push contacts.json --yes', '<%= config.bin %> db push contacts.json --yes --force',
    '<%= config.bin %> db push ws --yes   # a workspace folder: its dbs/']
  static args = {path: Args.string({description: 'a definition file, a folder of them, or a workspace folder (its dbs/)', required: true})}
  static flags = {
    yes: Flags.boolean({char: 'y', description: 'apply without asking (required without a terminal)', default: false}),
    'dry-run': Flags.boolean({description: 'only show the diff', default: false}),
    force: Flags.boolean({description: 'allow dropping fields or tables that hold data, and schema changes that existing records fail ' +
      '(a db changed on the server after the diff is still never overwritten: If-Match is always sent)', default: false}),
  }

  async run() {
    const {args, flags} = await this.parse(DbPush)
    const client = await this.client(flags)
    const plans = await withSpinner('Comparing schemas and checking records', !this.jsonEnabled(), async () => {
      const out: Plan[] = []
      // The server plans each change (POST /svc/dbs/plan.json): the same diff and checks as svc push and the console.
      for (const d of await definitions(args.path)) out.push({...d, plan: await planDb(client, d.definition as unknown as Record<string, unknown>)})
      return out
    })
    return this.apply(client, plans, flags)
  }

  private async apply(client: Client, plans: Plan[], flags: {yes: boolean; 'dry-run': boolean; force: boolean}) {
    for (const p of plans) {
      this.say(`${p.definition.code} (${p.file}): ${p.plan.changes.length ? `${p.plan.changes.length} change(s)` : 'up to date'}`)
      for (const line of planLines(p.plan)) this.say(line)
    }
    const summary = plans.map((p) => ({
      code: p.definition.code, file: p.file, create: p.plan.create, changes: p.plan.changes, data_loss: p.plan.data_loss, invalid_records: p.plan.invalid_records,
    }))
    const pending = plans.filter((p) => p.plan.changes.length)
    if (flags['dry-run'] || pending.length === 0) {
      if (!flags['dry-run']) await this.recordSynced(client, plans.map((p) => ({p, saved: null})))
      return {applied: false, dry_run: flags['dry-run'], databases: summary}
    }
    const refusal = planRefusal(pending.map((p) => ({code: p.definition.code, plan: p.plan})))
    if (refusal && !flags.force) throw new SvcError('conflict', 409, refusal.message, {databases: summary}, refusal.hint)
    if (!(await confirmDestructive({yes: flags.yes, action: 'applying the schema changes',
      message: `Apply ${pending.length === 1 ? 'this change' : 'these changes'} to ${pending.length} database(s)?`}))) {
      this.say('Nothing changed.')
      return {applied: false, dry_run: false, databases: summary}
    }
    const done: {p: Plan; saved: DbView | null}[] = plans.filter((p) => !p.plan.changes.length).map((p) => ({p, saved: null}))
    try {
      for (const p of pending) {
        const db = dbWriteBody(p.definition)
        let saved: DbView
        if (p.plan.db_id !== null) {
          try {
            saved = await client.call('updateDb', {params: {id: String(p.plan.db_id)}, body: {db}, headers: p.plan.etag ? {'if-match': p.plan.etag} : {}})
          } catch (error) {
            if (!isSvcError(error) || error.status !== 412) throw error
            throw new SvcError('conflict', 412, `${p.definition.code} changed on the server after the diff was made: nothing was applied to it${pending.indexOf(p) ? ' (the databases before it were)' : ''}`,
              {code: p.definition.code}, 'run svc db push again to see the diff against the current version')
          }
        } else saved = await client.call('createDb', {body: {db: db as never}})
        done.push({p, saved})
        this.say(`${p.plan.create ? 'Created' : 'Updated'} ${p.definition.code}`)
      }
    } finally {
      await this.recordSynced(client, done)
    }
    return {applied: true, dry_run: false, databases: summary}
  }

  /**
   * A definition file of a synced workspace (`<ws>/dbs/<code>.json`) records what the backend now
   * holds in the workspace's state, as `svc push` does: the next `svc push` sees no change of the
   * backend's there. `saved` null: unchanged, recorded as it is.
   */
  private async recordSynced(client: Client, done: {p: Plan; saved: DbView | null}[]) {
    for (const {p, saved} of done) {
      const state = await workspaceState(client, p.file, p.definition.code)
      if (!state) continue
      const view = saved ?? await client.call('getDb', {params: {id: p.definition.code}})
      const resource = dbResource(view as unknown as Record<string, unknown>)
      for (const [path, text] of Object.entries(resource.files)) state.set(path, text, p.text)
      await state.save()
    }
  }
}
