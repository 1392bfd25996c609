import {Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {interactive, readFileOrStdin} from '../../cli/read-input.js'
import {SvcError} from '../../core/errors.js'
import type {PromptView} from '../../core/prompts/types.js'
import type {Client} from '../../client/backend.js'
import {resolveScopeId} from '../../client/refs.js'

/** Flags shared by `prompt create` and `prompt update`. */
export const promptFlags = {
  name: Flags.string({description: 'name shown in lists and in the AI modal'}),
  code: Flags.string({description: 'identifier (letters, digits, _ and -)'}),
  content: Flags.string({description: 'Liquid template', exclusive: ['content-file']}),
  'content-file': Flags.string({description: 'read the content from FILE (- for stdin)', exclusive: ['content']}),
  kind: Flags.string({description: 'chat or agent', options: ['chat', 'agent']}),
  scope: Flags.string({description: 'user, team, department or account', options: ['user', 'team', 'department', 'account']}),
  'scope-id': Flags.string({description: 'team or department id or name (scope user: yourself when omitted)'}),
  'ai-placeholder': Flags.string({description: 'hint in the text field of the AI modal'}),
}

type PromptFlagValues = {[K in keyof typeof promptFlags]?: string | number}

/** The `{prompt: {...}}` members the flags give (only those given); `--scope-id` by name is resolved later. */
export async function promptBody(flags: PromptFlagValues): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {}
  if (flags.name !== undefined) body.name = flags.name
  if (flags.code !== undefined) body.code = flags.code
  if (flags.content !== undefined) body.content = flags.content
  if (flags['content-file'] !== undefined) body.content = await readFileOrStdin(String(flags['content-file']))
  if (flags.kind !== undefined) body.kind = flags.kind
  if (flags.scope !== undefined) body.scope = flags.scope
  if (flags['scope-id'] !== undefined) body.scope_id = flags['scope-id']
  if (flags['ai-placeholder'] !== undefined) body.ai_placeholder = flags['ai-placeholder']
  return body
}

/** On a terminal, asks for the required values the flags left out; elsewhere the server's 422 names them. */
export async function askMissing(body: Record<string, unknown>): Promise<void> {
  const missing = (['name', 'code', 'content'] as const).filter((k) => typeof body[k] !== 'string' || body[k] === '')
  if (missing.length === 0 || !interactive()) return
  const {editor, input} = await import('@inquirer/prompts')
  const required = (v: string) => (v.trim() === '' ? "can't be blank" : true)
  for (const field of missing) {
    body[field] = field === 'content'
      ? await editor({message: 'Content (Liquid template)', validate: required})
      : await input({message: field === 'name' ? 'Name' : 'Code', required: true, validate: required})
  }
}

/** Turns a `--scope-id` name into the team or department id (the scope comes from the flags or the stored prompt). */
export async function resolveScope(client: Client, body: Record<string, unknown>, currentScope?: string): Promise<void> {
  if (body.scope_id !== undefined) body.scope_id = await resolveScopeId(client, String(body.scope_id), (body.scope as string | undefined) ?? currentScope)
}

export default class PromptCreate extends BackendCommand {
  static description = 'Create a stored prompt (asks for missing name, code and content on a terminal)'
  static examples = [
    '<%= config.bin %> prompt create --name "CRM helper" --code crm_dashboard --kind agent --scope user --content-file crm.md',
    'cat extra.md | <%= config.bin %> prompt create --name Extra --code crm_dashboard_extra --content-file -',
  ]
  static flags = promptFlags

  async run(): Promise<PromptView> {
    const {flags} = await this.parse(PromptCreate)
    const body = await promptBody(flags)
    await askMissing(body)
    const client = await this.client(flags)
    await resolveScope(client, body)
    const created = await client.call('createPrompt', {body: {prompt: body}})
    this.say(`Created prompt ${created.code} (${created.id}), scope ${created.scope}${created.scope_id === null ? '' : ` ${created.scope_id}`}`)
    return created
  }
}

export const noChanges = () => new SvcError('usage', 0, 'nothing to change', undefined, 'give at least one of --name, --code, --content, --content-file, --kind, --scope, --scope-id, --ai-placeholder')
