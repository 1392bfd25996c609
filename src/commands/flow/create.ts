import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {parseJsonArg, readFileOrStdin} from '../../cli/read-input.js'
import {SvcError} from '../../core/errors.js'
import type {Resource} from '../../core/flows/resources.js'

export default class FlowCreate extends BackendCommand {
  static description = 'Create a flow: a program of connector, mutation and if steps'
  static examples = [
    `<%= config.bin %> flow create heat_check --program-json '[{"type":"mutation","set":{"city":"Cairo"}}]'`,
    '<%= config.bin %> flow create heat_check --name "Heat check" --program-file program.json',
  ]
  static args = {code: Args.string({description: 'flow code (used by crons and app actions)', required: true})}
  static flags = {
    name: Flags.string({description: 'display name (default: the code)'}),
    'program-file': Flags.string({description: 'file with the program: a JSON array of steps (- for stdin)', aliases: ['program'], exclusive: ['program-json']}),
    'program-json': Flags.string({description: 'the program as inline JSON'}),
  }

  async run() {
    const {args, flags} = await this.parse(FlowCreate)
    let program: unknown = []
    const file = flags['program-file']
    if (file) program = parseJsonArg(await readFileOrStdin(file), file)
    else if (flags['program-json']) program = parseJsonArg(flags['program-json'], '--program-json')
    if (program && typeof program === 'object' && !Array.isArray(program) && 'program' in program) program = (program as {program: unknown}).program
    if (!Array.isArray(program)) throw new SvcError('usage', 0, 'the program must be a JSON array of steps')
    const flow = await (await this.client(flags)).call('createResource', {body: {
      resource: {kind: 'svc/custom_flow', code: args.code, name: flags.name, fields: {program}},
    }})
    this.say(`Created flow ${flow.code} (id ${flow.id}, ${program.length} steps)`)
    return flow
  }
}
