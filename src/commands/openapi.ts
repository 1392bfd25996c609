import {existsSync, readFileSync} from 'node:fs'
import {writeFile} from 'node:fs/promises'
import {Flags} from '#oclif'
import {SvcCommand} from '../cli/base-command.js'
import {confirmOverwrite} from '../cli/confirm.js'

export default class OpenApi extends SvcCommand {
  static description = 'Print the OpenAPI 3.1 document of the API (generated from the route schemas; a server serves the same at /svc/openapi.json)'
  static examples = [
    '<%= config.bin %> openapi > svc-openapi.json',
    '<%= config.bin %> openapi --output svc-openapi.json --server-url https://svc.example.com',
  ]

  static flags = {
    output: Flags.string({char: 'o', description: 'write the document to this file instead of stdout'}),
    force: Flags.boolean({description: 'overwrite the --output file when it exists with other content', default: false}),
    'server-url': Flags.string({description: 'base URL to put in the document\'s servers list', env: 'SVC_PUBLIC_URL'}),
  }

  async run(): Promise<{output: string | null; paths: number; operations: number}> {
    const {flags} = await this.parse(OpenApi)
    // From the contract's route definitions alone: no app, no store.
    const {openapiDocument, packageVersion} = await import('../http/openapi.js')
    const document = openapiDocument(packageVersion(), flags['server-url'])
    const text = JSON.stringify(document, null, 2) + '\n'
    const paths = Object.keys(document.paths ?? {}).length
    const operations = Object.values(document.paths ?? {}).reduce((n, item) => n + Object.keys(item ?? {}).length, 0)
    if (flags.output) {
      const differs = existsSync(flags.output) && readFileSync(flags.output, 'utf8') !== text
      if (!(await confirmOverwrite({files: differs ? [flags.output] : [], force: flags.force, message: `${flags.output} exists with other content. Overwrite it?`,
        hint: 'pass --force to overwrite it, or -o FILE to write another file'}))) {
        this.say('Nothing written.')
        return {output: null, paths, operations}
      }
      await writeFile(flags.output, text)
      this.say(`wrote ${flags.output}: ${operations} operations on ${paths} paths`)
    } else if (!this.jsonEnabled()) process.stdout.write(text)
    return {output: flags.output ?? null, paths, operations}
  }
}
