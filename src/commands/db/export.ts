import {createWriteStream, existsSync} from 'node:fs'
import {rename, rm} from 'node:fs/promises'
import {once} from 'node:events'
import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import {SvcError} from '../../core/errors.js'
import type {RecordView} from '../../core/contract/dbs.js'
import {dbId} from '../../client/refs.js'

export default class DbExport extends BackendCommand {
  static description = 'Export every record as NDJSON (one {id, table_name, data, created_at, updated_at} per line); the file appears whole or not at all'
  static args = {db: Args.string({description: 'database id, code or name', required: true})}
  static examples = ['<%= config.bin %> db export books', '<%= config.bin %> db export books -o - | head', '<%= config.bin %> db export books -o books.ndjson --force']
  static flags = {
    output: Flags.string({char: 'o', aliases: ['out'], description: 'output file (- for stdout); default DB.ndjson'}),
    force: Flags.boolean({description: 'overwrite the output file when it exists', default: false}),
  }

  async run() {
    const {args, flags} = await this.parse(DbExport)
    const client = await this.client(flags)
    const dbRef = await dbId(client, args.db)
    const target = flags.output ?? `${args.db}.ndjson`
    if (target !== '-' && existsSync(target) && !flags.force) {
      const ok = await confirmDestructive({yes: false, action: `overwriting ${target}`, message: `${target} exists. Overwrite it?`})
        .catch(() => {
          throw new SvcError('usage', 0, `${target} exists; not overwritten`, undefined, 'pass --force to overwrite it, -o FILE for another file, or -o - for stdout')
        })
      if (!ok) throw new SvcError('usage', 0, `${target} exists; not overwritten`, undefined, 'pass -o FILE for another file')
    }
    const temp = `${target}.${process.pid}.tmp`
    const out = target === '-' ? process.stdout : createWriteStream(temp)
    let count = 0
    try {
      for (let after = 0; ;) {
        const page = await client.call('listRecords', {params: {db_id: dbRef}, query: {after_id: after, limit: 100}})
        if (page.length === 0) break
        const chunk = page.map((r) => JSON.stringify(r)).join('\n') + '\n'
        if (!out.write(chunk)) await once(out, 'drain')
        count += page.length
        after = page[page.length - 1]!.id
      }
      if (out !== process.stdout) {
        await new Promise<void>((done, fail) => (out as ReturnType<typeof createWriteStream>).end((e?: Error | null) => (e ? fail(e) : done())))
        await rename(temp, target)
      }
    } catch (error) {
      if (out !== process.stdout) {
        ;(out as ReturnType<typeof createWriteStream>).destroy()
        await rm(temp, {force: true})
      }
      throw error
    }
    if (target !== '-') this.note(`Exported ${count} records to ${target}`)
    return {exported: count, file: target === '-' ? null : target}
  }
}
