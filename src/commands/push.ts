import {Args, Flags} from '#oclif'
import {BackendCommand, yesFlag} from '../cli/base-command.js'
import {confirmDestructive} from '../cli/confirm.js'
import {withSpinner} from '../cli/spinner.js'
import {out as colors} from '../cli/style.js'
import {SvcError} from '../core/errors.js'
import {describe, summary, type Change} from '../core/workspace/plan.js'
import {planLines} from '../core/dbs/plan.js'
import {applyPlan, dbRefusal, planFolder, recordSynced} from '../workspace/push.js'
import {workspaceDir} from '../cli/args.js'

const brief = (c: Change) => ({action: c.action, kind: c.kind, key: c.key, diff: c.diff, ...(c.db ? {plan: c.db} : {})})

/** A unified diff with + and - lines coloured (on a terminal). */
export function colorDiff(diff: string): string {
  const c = colors()
  return diff.replace(/\n$/, '').split('\n')
    .map((l) => (l.startsWith('+') && !l.startsWith('+++') ? c.green(l) : l.startsWith('-') && !l.startsWith('---') ? c.red(l) : l.startsWith('@@') ? c.cyan(l) : l))
    .join('\n')
}

export default class Push extends BackendCommand {
  static description = 'Apply a workspace folder to the backend: one diff of everything that changes, a confirmation, then the changes'
  static examples = ['<%= config.bin %> push --dry-run', '<%= config.bin %> push ./workspace --yes --prune', '<%= config.bin %> push --yes --force']
  static args = {dir: Args.string({description: 'workspace folder (default: the current folder)'})}
  static flags = {
    dir: Flags.string({char: 'd', description: 'workspace folder (the same as the DIR argument, kept for older scripts)'}),
    yes: yesFlag,
    'dry-run': Flags.boolean({description: 'only show what would change', default: false}),
    prune: Flags.boolean({description: 'also delete what is on the backend but not in the folder', default: false}),
    force: Flags.boolean({description: 'overwrite resources the backend changed since your last pull or push, or changes while the push runs (sends no If-Match); ' +
      'allow db changes that drop fields or tables holding data, or leave records invalid', default: false}),
  }

  async run() {
    const {args, flags} = await this.parse(Push)
    const dir = workspaceDir(args.dir, flags.dir)
    const client = await this.client(flags)
    const plan = await withSpinner('Comparing the folder with the backend', !this.jsonEnabled(), () => planFolder(client, dir, {prune: flags.prune, force: flags.force}))
    const conflicted = new Set(plan.conflicts.map((c) => c.key))
    for (const c of plan.changes) {
      this.say(describe(c))
      if (conflicted.has(c.key)) this.say(colors().yellow(`  ! changed on the backend since your last pull: this ${c.action === 'delete' ? 'deletes' : 'overwrites'} that change`))
      if (c.diff) this.say(colorDiff(c.diff))
      if (c.db) for (const line of planLines(c.db)) this.say(line)
    }
    this.say(summary(plan))
    const result = (applied: Change[]) => ({applied: applied.map((c) => ({action: c.action, kind: c.kind, key: c.key})),
      changes: plan.changes.map(brief), conflicts: plan.conflicts.map((c) => c.key), kept: plan.kept, unchanged: plan.unchanged, dry_run: flags['dry-run']})
    if (flags['dry-run']) return result([])
    if (plan.changes.length === 0) {
      await recordSynced(plan, [])
      return result([])
    }
    if (plan.conflicts.length && !flags.force) {
      throw new SvcError('conflict', 409, `not applied: the backend changed ${plan.conflicts.map((c) => c.key).join(', ')} since your last pull`,
        {conflicts: plan.conflicts.map(brief)}, 'svc pull to take the backend\'s version (then edit and push), or push --force to overwrite it (the diff above shows what would be lost)')
    }
    // The same refusal as svc db push: a db change that drops data or leaves records invalid needs --force.
    const refusal = dbRefusal(plan.changes)
    if (refusal && !flags.force) throw new SvcError('conflict', 409, refusal.message, {changes: plan.changes.map(brief)}, refusal.hint)
    if (!(await confirmDestructive({yes: flags.yes, action: 'applying the push', message: `Apply ${plan.changes.length} change(s)?`}))) {
      this.say('Nothing changed.')
      return result([])
    }
    const applied: Change[] = []
    try {
      await applyPlan(client, dir, plan.changes, (c) => {
        applied.push(c)
        this.say(`${c.action === 'create' ? 'created' : c.action === 'update' ? 'changed' : 'deleted'} ${c.kind} ${c.key}`)
      })
    } finally {
      await recordSynced(plan, applied)
    }
    this.say(`Done: ${applied.length} change(s) applied.`)
    return result(applied)
  }
}
