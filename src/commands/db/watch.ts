import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {findDb} from '../../client/refs.js'
import {followFeed, type FeedEvent} from '../../client/feed.js'
import {searchTable} from '../../core/dbs/query.js'
import {planSchema} from '../../core/dbs/schema.js'

/** One event as a line: `<bookmark> create #12 notes {"title":"hi"}`. */
export function eventLine(e: FeedEvent): string {
  const d = (e.data ?? {}) as {id?: unknown; table_name?: unknown; data?: unknown}
  if (e.event === 'resync') return `resync ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}`
  const table = typeof d.table_name === 'string' ? ` ${d.table_name}` : ''
  const data = e.event === 'delete' || d.data === undefined ? '' : ` ${JSON.stringify(d.data)}`
  return `${e.id ?? '-'} ${e.event} #${String(d.id ?? '?')}${table}${data}`
}

export default class DbWatch extends BackendCommand {
  static description = 'Print the changes of a database as they happen (a live feed; Ctrl-C stops)'
  static examples = [
    '<%= config.bin %> db watch notes',
    '<%= config.bin %> db watch crm --table contacts --json',
  ]
  static args = {db: Args.string({description: 'database id, code or name', required: true})}
  static flags = {
    table: Flags.string({description: 'only the records of this table'}),
    after: Flags.string({description: 'replay the changes after this bookmark first (as a reconnect does)'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(DbWatch)
    const client = await this.client(flags)
    const db = await findDb(client, args.db)
    // A table the db does not have is said now (the feed would stay silent).
    if (flags.table !== undefined) searchTable(planSchema(db.schema), flags.table)
    const query = flags.table ? `?table_name=${encodeURIComponent(flags.table)}` : ''
    const json = this.jsonEnabled()
    const abort = new AbortController()
    const stop = () => abort.abort()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    // The embedded backend's stream holds no socket and its timers are unref'd: this keeps the process up until Ctrl-C.
    const alive = setInterval(() => {}, 3_600_000)
    // Lines go out as they come: stdout is not buffered into a result (`--json`: one JSON object a line).
    const write = (line: string) => process.stdout.write(line + '\n')
    try {
      await followFeed(client.backend, `/svc/dbs/${db.id}/changes${query}`, {
        lastEventId: flags.after ?? null,
        signal: abort.signal,
        onEvent: (e) => write(json ? JSON.stringify({event: e.event, id: e.id, data: e.data}) : eventLine(e)),
        onNote: (line) => process.stderr.write(line + '\n'),
        onOpen: (again) => {
          if (!again) process.stderr.write(`watching ${db.code ?? db.name} (id ${db.id})${flags.table ? `, table ${flags.table}` : ''}; Ctrl-C stops\n`)
        },
      })
    } finally {
      clearInterval(alive)
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
    }
  }

}
