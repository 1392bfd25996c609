import {createReadStream} from 'node:fs'
import {createInterface} from 'node:readline'
import {Args, Flags} from '@oclif/core'
import {BackendCommand} from '../../cli/base-command.js'
import {SvcError} from '../../core/errors.js'

export default class DbImport extends BackendCommand {
  static description = 'Import NDJSON records (lines of {table_name, data}, or bare data objects) in batches; each batch is all or nothing'
  static args = {
    db: Args.string({description: 'database id or code', required: true}),
    file: Args.string({description: 'NDJSON file (- for stdin)', required: true}),
  }
  static flags = {batch: Flags.integer({description: 'records per request (1-1000)', default: 500, min: 1, max: 1000})}

  async run() {
    const {args, flags} = await this.parse(DbImport)
    const client = await this.client(flags)
    const input = args.file === '-' ? process.stdin : createReadStream(args.file)
    input.on('error', () => {})
    const lines = createInterface({input, crlfDelay: Infinity})
    let batch: unknown[] = []
    let imported = 0
    let lineNo = 0
    const send = async () => {
      if (!batch.length) return
      try {
        imported += (await client.call('importRecords', {params: {db_id: args.db}, body: {records: batch as Record<string, unknown>[]}})).imported
      } catch (error) {
        if (error instanceof SvcError) {
          throw new SvcError(error.code, error.status, `${error.message} (batch ending at line ${lineNo}; ${imported} records imported before it)`, error.details)
        }
        throw error
      }
      batch = []
    }
    try {
      for await (const line of lines) {
        lineNo++
        if (!line.trim()) continue
        let value: unknown
        try {
          value = JSON.parse(line)
        } catch {
          throw new SvcError('usage', 0, `line ${lineNo} of ${args.file} is not JSON`)
        }
        if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new SvcError('usage', 0, `line ${lineNo} is not a JSON object`)
        const v = value as Record<string, unknown>
        batch.push(v.data !== undefined && typeof v.data === 'object' ? {table_name: v.table_name ?? null, data: v.data} : {data: v})
        if (batch.length >= flags.batch) await send()
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SvcError('usage', 0, `cannot read ${args.file}: ENOENT`)
      throw error
    }
    await send()
    this.say(`Imported ${imported} records`)
    return {imported}
  }
}
