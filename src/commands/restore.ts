import {Args, Flags} from '#oclif'
import {BackendCommand, yesFlag} from '../cli/base-command.js'
import {confirmDestructive} from '../cli/confirm.js'
import {sinceFlag} from '../cli/history.js'
import {SvcError} from '../core/errors.js'
import {DOORS, JOURNAL_KINDS, type JournalKind} from '../core/journal/types.js'

export default class Restore extends BackendCommand {
  static description = 'Put a resource back as a change left it (a deleted one comes back), or undo everything changed since a time; '
    + 'asks first (--yes without a terminal). A restore is a change of its own: it can be undone the same way (docs/history.md)'
  static examples = [
    '<%= config.bin %> restore 0000000000000042',
    '<%= config.bin %> restore --since 1h --door mcp --client claude-code --dry-run',
    '<%= config.bin %> restore --since 2026-01-31T12:00:00Z --yes',
  ]
  static args = {bookmark: Args.string({description: 'the bookmark of the change whose version to restore'})}
  static flags = {
    since: Flags.string({description: 'undo every change since this time (ISO 8601, or an age: 30m, 2h, 7d)', exclusive: ['bookmark']}),
    door: Flags.string({description: 'with --since: only what was changed through this door', options: [...DOORS], dependsOn: ['since']}),
    client: Flags.string({description: 'with --since: only what this MCP client changed', dependsOn: ['since']}),
    'actor-id': Flags.string({description: 'with --since: only what this user (id) changed', dependsOn: ['since']}),
    kind: Flags.string({description: 'with --since: only this kind', options: [...JOURNAL_KINDS], dependsOn: ['since']}),
    'dry-run': Flags.boolean({description: 'with --since: list what would be restored, change nothing', dependsOn: ['since']}),
    yes: yesFlag,
  }

  async run() {
    const {args, flags} = await this.parse(Restore)
    if (!args.bookmark && !flags.since) throw new SvcError('usage', 0, 'give a BOOKMARK, or --since TIME', undefined, 'svc history lists the changes and their bookmarks')
    const client = await this.client(flags)
    if (args.bookmark) {
      const entry = await client.call('getHistoryEntry', {params: {bookmark: args.bookmark}})
      const what = `${entry.kind} ${entry.id}`
      if (!(await confirmDestructive({yes: flags.yes, action: `restore ${what}`, message: `Restore ${what} as it was at ${entry.at} (${entry.summary})?`}))) {
        this.say('Nothing restored.')
        return {restored: false}
      }
      const done = await client.call('restoreEntry', {params: {bookmark: args.bookmark}})
      this.say(`Restored ${what} (bookmark ${done.bookmark}: svc restore on the one before it undoes this)`)
      return {restored: true, ...done}
    }
    const body = {
      since: sinceFlag(flags.since)!, door: flags.door as never, client: flags.client, actor_id: flags['actor-id'], kind: flags.kind as JournalKind | undefined,
    }
    const plan = await client.call('restoreSince', {body: {...body, dry_run: true}})
    const lines = plan.restored.map((r) => `  ${r.kind} ${r.id}${r.to === 'absent' ? ' (created since: removed)' : ''}`)
    if (flags['dry-run'] || plan.restored.length === 0) {
      this.say(plan.restored.length ? `Would restore ${plan.restored.length}:\n${lines.join('\n')}` : 'Nothing to restore.')
      for (const c of plan.conflicts) this.say(`  cannot: ${c.kind} ${c.id}: ${c.reason}`)
      return plan
    }
    if (!(await confirmDestructive({yes: flags.yes, action: `restore ${plan.restored.length} resources`,
      message: `Restore ${plan.restored.length} resources to ${body.since}?\n${lines.slice(0, 20).join('\n')}${lines.length > 20 ? '\n  …' : ''}`}))) {
      this.say('Nothing restored.')
      return {restored: [], conflicts: []}
    }
    const undoFrom = new Date().toISOString()
    const done = await client.call('restoreSince', {body})
    this.say(`Restored ${done.restored.length}${done.conflicts.length ? `, ${done.conflicts.length} could not be` : ''}`)
    for (const c of done.conflicts) this.say(`  cannot: ${c.kind} ${c.id}: ${c.reason}`)
    if (done.restored.length) this.say(`Undo with: svc restore --since ${undoFrom} --door cli`)
    return done
  }
}
