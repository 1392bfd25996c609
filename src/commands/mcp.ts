import {Flags} from '#oclif'
import {BackendCommand} from '../cli/base-command.js'
import {SvcError} from '../core/errors.js'

export default class Mcp extends BackendCommand {
  static description = 'Serve the workspace to an AI agent over the Model Context Protocol (stdio): tools, prompts, resources'
  static examples = [
    '<%= config.bin %> mcp --data ./.svc',
    '<%= config.bin %> mcp --url https://svc.example.com --token $SVC_TOKEN --read-only --tools dbs,prompts',
    '<%= config.bin %> mcp --list',
  ]
  static flags = {
    tools: Flags.string({description: 'tool groups to list: dbs, prompts, apps, flows, history (comma-separated; default all)'}),
    'read-only': Flags.boolean({description: 'the API refuses every write made through this connection', default: false}),
    'allow-deletes': Flags.boolean({description: 'offer the delete tools (each delete still asks you to confirm)', default: false}),
    list: Flags.boolean({description: 'print the tools and prompts a client would see, with their token cost, and exit', default: false}),
    'watch-seconds': Flags.integer({description: 'seconds between looks for changed prompts (0: never)', default: 10, min: 0, hidden: true}),
  }

  async run() {
    const {flags} = await this.parse(Mcp)
    const {parseGroups} = await import('../mcp/tools.js')
    let groups
    try {
      groups = parseGroups(flags.tools)
    } catch (error) {
      throw new SvcError('usage', 0, (error as Error).message)
    }
    const backend = (await this.client(flags)).backend
    const options = {groups, readOnly: flags['read-only'], allowDeletes: flags['allow-deletes']}
    if (flags.list) {
      const {preview} = await import('../mcp/preview.js')
      const result = await preview(backend, options)
      for (const t of result.tools) this.say(`${t.name.padEnd(22)} ${t.kind.padEnd(6)} ~${t.tokens} tokens`)
      this.say(`tools/list: ${result.tools.length} tools, ~${result.tools_tokens} tokens (characters / 4)`)
      for (const p of result.prompts) this.say(`prompt ${p.name}(${p.arguments.map((a) => a.name + (a.required ? '' : '?')).join(', ')})`)
      this.say(`prompts/list: ${result.prompts.length} prompts, ~${result.prompts_tokens} tokens`)
      return result
    }
    const [{serveStdio}, {packageVersion}] = await Promise.all([import('../mcp/stdio.js'), import('../http/openapi.js')])
    await serveStdio(backend, {...options, version: packageVersion(), watchSeconds: flags['watch-seconds']})
    return undefined
  }
}
