import {existsSync, readFileSync} from 'node:fs'
import {writeFile, rename} from 'node:fs/promises'
import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {confirmOverwrite} from '../../cli/confirm.js'
import {definitionOf} from '../../core/dbs/diff.js'
import type {DbView} from '../../core/contract/dbs.js'
import {findDb} from '../../client/refs.js'

export default class DbPull extends BackendCommand {
  static description = 'Write a database definition (name, code, schema, public_methods) to a JSON file for `svc db push`'
  static examples = ['<%= config.bin %> db pull books', '<%= config.bin %> db pull books -o dbs/books.json --force']
  static args = {db: Args.string({description: 'database id, code or name', required: true})}
  static flags = {
    output: Flags.string({char: 'o', aliases: ['out'], description: 'file to write; default CODE.json'}),
    force: Flags.boolean({description: 'overwrite the file when it exists with other content', default: false}),
  }

  async run() {
    const {args, flags} = await this.parse(DbPull)
    const db = await findDb(await this.client(flags), args.db)
    const definition = definitionOf(db)
    const file = flags.output ?? `${db.code ?? db.id}.json`
    const text = JSON.stringify(definition, null, 2) + '\n'
    const differs = existsSync(file) && readFileSync(file, 'utf8') !== text
    if (!(await confirmOverwrite({files: differs ? [file] : [], force: flags.force, message: `${file} exists with other content (edited since it was pulled?). Overwrite it?`,
      hint: `pass --force to overwrite it, or -o FILE to write another file (svc db push ${file} applies your edits)`}))) {
      this.say('Nothing written.')
      return {file: null, definition}
    }
    await writeFile(`${file}.tmp`, text)
    await rename(`${file}.tmp`, file)
    this.say(`Wrote ${file}`)
    return {file, definition}
  }
}
