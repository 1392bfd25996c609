import {statSync} from 'node:fs'
import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {batches, lineErrors, stdinLines} from '../../cli/ndjson.js'
import {progressBar} from '../../cli/spinner.js'
import {isSvcError, SvcError} from '../../core/errors.js'
import type {RecordSend} from '../../core/contract/dbs.js'
import {dbId} from '../../client/refs.js'

export default class DbImport extends BackendCommand {
  static description = 'Import NDJSON records (lines of {table_name, data}, or bare data objects). The whole file is checked first: ' +
    'one bad record and nothing is imported. An import cut short (network, server) says which line to resume from (--from-line).'
  static examples = ['<%= config.bin %> db import books books.ndjson', 'cat books.ndjson | <%= config.bin %> db import books -', '<%= config.bin %> db import books books.ndjson --from-line 1201']
  static args = {
    db: Args.string({description: 'database id, code or name', required: true}),
    file: Args.string({description: 'NDJSON file (- for stdin)', required: true}),
  }
  static flags = {
    batch: Flags.integer({description: 'records per request (1-1000)', default: 500, min: 1, max: 1000}),
    'from-line': Flags.integer({description: 'start at this line of the file (resume an import that was cut short)', default: 1, min: 1}),
    'skip-check': Flags.boolean({description: 'skip the check of the whole file before importing (batches stay all or nothing)', default: false}),
  }

  async run() {
    const {args, flags} = await this.parse(DbImport)
    const client = await this.client(flags)
    const params = {db_id: await dbId(client, args.db)}
    const source = args.file === '-' ? await stdinLines() : args.file
    const total = typeof source === 'string' ? safeSize(source) : source.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0)
    const show = !this.jsonEnabled()

    if (!flags['skip-check']) {
      const bar = await progressBar('Checking ', total, show)
      const problems: string[] = []
      let checked = 0
      try {
        for await (const b of batches(source, args.file, flags.batch, flags['from-line'])) {
          try {
            await client.call('importRecords', {params, body: {records: b.records as RecordSend[]}, query: {dry_run: 1}})
          } catch (error) {
            if (!isSvcError(error) || error.code !== 'validation') throw error
            problems.push(...lineErrors(error.details, b.lines))
          }
          checked += b.records.length
          bar.update(b.bytes)
          if (problems.length >= 20) break
        }
      } finally {
        bar.stop()
      }
      if (problems.length) {
        throw new SvcError('validation', 422, `nothing imported: ${problems.length >= 20 ? 'at least ' : ''}${problems.length} invalid record(s):\n  ${problems.slice(0, 20).join('\n  ')}`,
          {records: problems.slice(0, 20)}, 'fix those lines, then import again')
      }
      if (show && checked > 0) this.note(`Checked ${checked} records`)
    }

    const bar = await progressBar('Importing', total, show)
    let imported = 0
    let nextLine = flags['from-line']
    try {
      for await (const b of batches(source, args.file, flags.batch, flags['from-line'])) {
        try {
          imported += (await client.call('importRecords', {params, body: {records: b.records as RecordSend[]}})).imported
        } catch (error) {
          if (!isSvcError(error)) throw error
          const detail = error.code === 'validation' ? lineErrors(error.details, b.lines).join('; ') : error.message
          throw new SvcError(error.code, error.status,
            `import stopped at line ${b.lines[0]}: ${detail}. ${imported} record(s) before it were imported, none from line ${b.lines[0]} on`,
            {imported, resume_from_line: b.lines[0]},
            `${args.file === '-' ? 'fix the input, then' : 'fix it, then'} resume without duplicates: svc db import ${args.db} ${args.file} --from-line ${b.lines[0]}`)
        }
        nextLine = b.lines[b.lines.length - 1]! + 1
        bar.update(b.bytes)
      }
    } finally {
      bar.stop()
    }
    this.say(`Imported ${imported} records`)
    return {imported, next_line: nextLine}
  }
}

function safeSize(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}
