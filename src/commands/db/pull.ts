import {writeFile, rename} from 'node:fs/promises'
import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {definitionOf} from '../../core/dbs/diff.js'
import type {DbView} from '../../core/contract/dbs.js'
import {findDb} from '../../client/refs.js'

export default class DbPull extends BackendCommand {
  static description = 'Write a database definition (name, code, schema, public_methods) to a JSON file for `svc db push`'
  static args = {db: Args.string({description: 'database id, code or name', required: true})}
  static flags = {out: Flags.string({char: 'o', description: 'file to write; default CODE.json'})}

  async run() {
    const {args, flags} = await this.parse(DbPull)
    const db = await findDb(await this.client(flags), args.db)
    const definition = definitionOf(db)
    const file = flags.out ?? `${db.code ?? db.id}.json`
    await writeFile(`${file}.tmp`, JSON.stringify(definition, null, 2) + '\n')
    await rename(`${file}.tmp`, file)
    this.say(`Wrote ${file}`)
    return {file, definition}
  }
}
