import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {entryLine} from '../../cli/history.js'

export default class HistoryShow extends BackendCommand {
  static description = 'One change: the version it wrote (and with --diff, what it changed from the version before)'
  static examples = ['<%= config.bin %> history show 0000000000000042', '<%= config.bin %> history show 42 --diff']
  static args = {bookmark: Args.string({description: 'the bookmark of the change (svc history lists them)', required: true})}
  static flags = {diff: Flags.boolean({description: 'show what changed from the version before', default: false})}

  async run() {
    const {args, flags} = await this.parse(HistoryShow)
    const client = await this.client(flags)
    const entry = await client.call('getHistoryEntry', {params: {bookmark: args.bookmark}, query: flags.diff ? {diff: '1'} : {}})
    this.say(entryLine(entry))
    if (flags.diff) {
      const diff = entry.diff!
      this.say(diff.changed.length ? `changed: ${diff.changed.join(', ')}` : 'changed: nothing')
      if (diff.patch) this.say(diff.patch.trimEnd())
    } else {
      this.say(entry.version === null ? '(deleted: the version before follows)' : '')
      this.say(JSON.stringify(entry.version ?? entry.previous, null, 2))
    }
    return entry
  }
}
