/** `svc mcp --list`: what a client would see, with its token cost, before connecting one. */
import type {Backend} from '../client/backend.js'
import {promptCatalog, promptDefinition} from './prompts.js'
import {listed, listTools, tokenCost, toolCatalog, toolDefinition} from './server.js'
import {agentClient} from './agent-backend.js'
import {inlineBoundary} from './boundary.js'
import type {StdioOptions} from './stdio.js'

export interface Preview {
  tools: {name: string; group: string; kind: string; tokens: number}[]
  tools_tokens: number
  prompts: {name: string; arguments: {name: string; required: boolean}[]}[]
  prompts_tokens: number
}

/** What a client would see: the listed tools with their token cost (characters / 4), and the prompts. */
export async function preview(backend: Backend, options: Pick<StdioOptions, 'groups' | 'readOnly' | 'allowDeletes'>): Promise<Preview> {
  const client = agentClient(backend, options.readOnly)
  const [catalog, prompts] = await Promise.all([toolCatalog(client), promptCatalog(client)])
  const list = listTools(catalog, options)
  const wrap = inlineBoundary()
  const promptList = {prompts: prompts.map((p) => promptDefinition(p, wrap))}
  return {
    tools: catalog.tools.filter(({spec}) => listed(spec, options)).map(({spec, input}) => ({
      name: spec.name, group: spec.group, kind: spec.kind, tokens: tokenCost(toolDefinition(spec, input)),
    })),
    tools_tokens: tokenCost(list),
    prompts: prompts.map((p) => ({name: p.code, arguments: p.arguments.map((a) => ({name: a.name, required: a.required}))})),
    prompts_tokens: tokenCost(promptList),
  }
}
