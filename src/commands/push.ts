import {Flags} from '@oclif/core'
import {BackendCommand} from '../cli/base-command.js'
import {interactive} from '../cli/read-input.js'
import {SvcError} from '../core/errors.js'
import {describe, summary, type Change} from '../core/workspace/plan.js'
import {applyPlan, planFolder} from '../workspace/push.js'

const brief = (c: Change) => ({action: c.action, kind: c.kind, key: c.key, diff: c.diff})

export default class Push extends BackendCommand {
  static description = 'Apply a workspace folder to the backend: one diff of everything that changes, a confirmation, then the changes'
  static examples = ['<%= config.bin %> push --dry-run', '<%= config.bin %> push --yes --prune --dir ./workspace']
  static flags = {
    dir: Flags.string({char: 'd', description: 'workspace folder', default: '.'}),
    yes: Flags.boolean({char: 'y', description: 'apply without asking', default: false}),
    'dry-run': Flags.boolean({description: 'only show what would change', default: false}),
    prune: Flags.boolean({description: 'also delete what is on the backend but not in the folder', default: false}),
  }

  async run() {
    const {flags} = await this.parse(Push)
    const client = await this.client(flags)
    const plan = await planFolder(client, flags.dir, {prune: flags.prune})
    for (const c of plan.changes) {
      this.say(describe(c))
      if (c.diff) this.say(c.diff.replace(/\n$/, ''))
    }
    this.say(summary(plan))
    const result = (applied: Change[]) => ({applied: applied.map((c) => ({action: c.action, kind: c.kind, key: c.key})),
      changes: plan.changes.map(brief), kept: plan.kept, unchanged: plan.unchanged, dry_run: flags['dry-run']})
    if (flags['dry-run'] || plan.changes.length === 0) return result([])
    if (!flags.yes) {
      if (!interactive()) throw new SvcError('usage', 0, 'not applied: confirmation needs a terminal', undefined, 'pass --yes to apply, or --dry-run to only show the diff')
      const {confirm} = await import('@inquirer/prompts')
      if (!(await confirm({message: `Apply ${plan.changes.length} change(s)?`, default: false}))) {
        this.say('Nothing changed.')
        return result([])
      }
    }
    const applied: Change[] = []
    await applyPlan(client, flags.dir, plan.changes, (c) => {
      applied.push(c)
      this.say(`${c.action === 'create' ? 'created' : c.action === 'update' ? 'changed' : 'deleted'} ${c.kind} ${c.key}`)
    })
    this.say(`Done: ${applied.length} change(s) applied.`)
    return result(applied)
  }
}
