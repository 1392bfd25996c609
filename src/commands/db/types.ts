import {existsSync, readFileSync} from 'node:fs'
import {writeFile} from 'node:fs/promises'
import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {SvcError} from '../../core/errors.js'
import {dbTypesFile} from '../../core/dbs/types-gen.js'

export default class DbTypes extends BackendCommand {
  static description = 'Write TypeScript types of databases: records per table (required vs optional), what a create and an update take, the public methods\' parameters and answers, and record calls of svc-api-client typed by the db'
  static examples = [
    '<%= config.bin %> db types > src/db-types.ts',
    '<%= config.bin %> db types leads guestbook --out src/db-types.ts',
    '<%= config.bin %> db types --out src/db-types.ts --check   # in CI: exit 1 when the file is stale',
  ]

  static strict = false
  static args = {codes: Args.string({description: 'database codes (default: every database with a code)'})}
  static flags = {
    out: Flags.string({char: 'o', description: 'write the types to this file instead of stdout'}),
    check: Flags.boolean({description: 'write nothing: exit 1 when --out is missing or differs from what would be written', default: false}),
    client: Flags.string({description: 'the module the types import the client type from', default: 'svc-api-client'}),
  }

  async run(): Promise<{out: string | null; dbs: string[]; stale?: boolean}> {
    const {argv, flags} = await this.parse(DbTypes)
    const codes = argv as string[]
    if (flags.check && !flags.out) throw new SvcError('usage', 0, '--check compares with a file: give it with --out FILE')
    const client = await this.client(flags)
    const all = await client.call('listDbs')
    const missing = codes.filter((c) => !all.some((d) => d.code === c))
    if (missing.length) throw new SvcError('not_found', 404, `no database with code ${missing.join(', ')}`, undefined, 'list them with: svc db list')
    const picked = codes.length ? all.filter((d) => d.code !== null && codes.includes(d.code)) : all.filter((d) => d.code)
    const text = dbTypesFile(picked, {clientModule: flags.client})
    const names = picked.map((d) => d.code!).sort()
    if (flags.check) {
      const current = existsSync(flags.out!) ? readFileSync(flags.out!, 'utf8') : null
      const stale = current !== text
      if (stale) {
        this.note(`${flags.out} is ${current === null ? 'missing' : 'stale'}: the schemas of ${names.join(', ') || 'no database'} give other types.`)
        this.note(`Write it again with: svc db types ${codes.join(' ')}${codes.length ? ' ' : ''}--out ${flags.out}`)
        process.exitCode = 1
      } else this.say(`${flags.out} is up to date (${names.length} database${names.length === 1 ? '' : 's'}).`)
      return {out: flags.out!, dbs: names, stale}
    }
    if (flags.out) {
      await writeFile(flags.out, text)
      this.say(`wrote ${flags.out}: types of ${names.join(', ') || 'no database'}`)
    } else if (!this.jsonEnabled()) process.stdout.write(text)
    return {out: flags.out ?? null, dbs: names}
  }
}
