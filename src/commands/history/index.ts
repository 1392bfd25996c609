import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {entryLine, refQuery, sinceFlag} from '../../cli/history.js'
import {DOORS, JOURNAL_KINDS, JOURNAL_OPS, type JournalEntry, type JournalKind} from '../../core/journal/types.js'

export default class History extends BackendCommand {
  static description = 'What changed in the account, newest first: who, when, through which door (docs/history.md)'
  static examples = [
    '<%= config.bin %> history',
    '<%= config.bin %> history prompt greet',
    '<%= config.bin %> history record people/12',
    '<%= config.bin %> history --door mcp --since 1h',
    '<%= config.bin %> history --op delete   # the trash',
  ]
  static args = {
    kind: Args.string({description: 'only this kind', options: [...JOURNAL_KINDS]}),
    ref: Args.string({description: 'only this resource: id or code (records: DB or DB/ID)'}),
  }
  static flags = {
    door: Flags.string({description: 'only writes through this door', options: [...DOORS]}),
    client: Flags.string({description: 'only writes of this MCP client'}),
    op: Flags.string({description: 'only this operation (delete: the trash)', options: [...JOURNAL_OPS]}),
    since: Flags.string({description: 'only changes since this time (ISO 8601, or an age: 30m, 2h, 7d)'}),
    until: Flags.string({description: 'only changes until this time'}),
    before: Flags.string({description: 'the page before this bookmark'}),
    limit: Flags.integer({description: 'entries (1-100)', default: 20, min: 1, max: 100}),
  }

  async run(): Promise<JournalEntry[]> {
    const {args, flags} = await this.parse(History)
    const client = await this.client(flags)
    const kind = args.kind as JournalKind | undefined
    const ref = kind && args.ref ? await refQuery(client, kind, args.ref) : {}
    const entries = await client.call('listHistory', {query: {
      ...(kind ? {kind} : {}), ...ref, door: flags.door as never, client: flags.client, op: flags.op as never,
      since: sinceFlag(flags.since), until: sinceFlag(flags.until, '--until'), before: flags.before, limit: String(flags.limit),
    }})
    if (entries.length === 0) this.say('No changes.')
    for (const e of entries) this.say(entryLine(e))
    return entries
  }
}
