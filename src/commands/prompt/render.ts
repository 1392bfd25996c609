import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {explainLines, missingWarning, renderPrompt, type RenderResult} from '../../fastpath/prompt-render.js'

export default class PromptRender extends BackendCommand {
  static description = 'Print a prompt after the cascade, rendered (only the text goes to stdout)'
  static examples = [
    '<%= config.bin %> prompt render crm_dashboard --var client_id=12',
    '<%= config.bin %> prompt render main_dashboard --date 2026-01-31 --explain',
    '<%= config.bin %> prompt render my_prompt --strict --var name=Ada > prompt.md',
    `<%= config.bin %> prompt render report --var 'items:=["a","b"]' --vars vars.json`,
  ]
  static args = {code: Args.string({description: 'prompt code', required: true})}
  static flags = {
    var: Flags.string({description: 'variable for the template: name=text, or name:=JSON for lists, objects, numbers (repeatable)', multiple: true}),
    vars: Flags.string({description: 'JSON file of variables {"name": value} (- for stdin); --var wins'}),
    date: Flags.string({description: 'value of {{date}} (YYYY-MM-DD, default today)'}),
    explain: Flags.boolean({description: 'print on stderr which layer won and whether <code>_extra applied'}),
    strict: Flags.boolean({description: 'fail (exit 5) when the template outputs a variable nobody supplied; without it a warning goes to stderr'}),
  }

  async run(): Promise<RenderResult> {
    const {args, flags} = await this.parse(PromptRender)
    const result = await renderPrompt(await this.client(flags), {
      code: args.code, vars: flags.var, varsFile: flags.vars, date: flags.date, strict: flags.strict, token: flags.token,
    })
    if (!this.jsonEnabled()) {
      if (flags.explain) process.stderr.write(explainLines(result).map((l) => l + '\n').join(''))
      const warning = missingWarning(result)
      if (warning) process.stderr.write(warning + '\n')
      process.stdout.write(result.text)
      // A terminal's prompt would start after the last line otherwise; a pipe or a file gets the text exactly.
      if (process.stdout.isTTY && !result.text.endsWith('\n')) process.stdout.write('\n')
    }
    return result
  }
}
