import {Args, Flags} from '@oclif/core'
import {BackendCommand} from '../../cli/base-command.js'
import {explainLines, renderPrompt, type RenderResult} from '../../fastpath/prompt-render.js'

export default class PromptRender extends BackendCommand {
  static description = 'Print a prompt after the cascade, rendered (only the text goes to stdout)'
  static examples = [
    '<%= config.bin %> prompt render crm_dashboard --var client_id=12',
    '<%= config.bin %> prompt render main_dashboard --date 2026-01-31 --explain',
    '<%= config.bin %> prompt render my_prompt --strict --var name=Ada > prompt.md',
  ]
  static args = {code: Args.string({description: 'prompt code', required: true})}
  static flags = {
    var: Flags.string({description: 'variable for the template, key=value (repeatable)', multiple: true}),
    date: Flags.string({description: 'value of {{date}} (YYYY-MM-DD, default today)'}),
    explain: Flags.boolean({description: 'print on stderr which layer won and whether <code>_extra applied'}),
    strict: Flags.boolean({description: 'fail when the template outputs a variable nobody supplied'}),
  }

  async run(): Promise<RenderResult> {
    const {args, flags} = await this.parse(PromptRender)
    const result = await renderPrompt(await this.client(flags), {
      code: args.code, vars: flags.var, date: flags.date, strict: flags.strict, token: flags.token,
    })
    if (!this.jsonEnabled()) {
      if (flags.explain) process.stderr.write(explainLines(result).map((l) => l + '\n').join(''))
      process.stdout.write(result.text)
    }
    return result
  }
}
