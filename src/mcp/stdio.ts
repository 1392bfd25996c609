/**
 * `svc mcp`: the MCP server over stdio for a local agent, calling the CLI's target (embedded data dir
 * or remote server) as the CLI would, through the agent backend (agent-backend.ts: the API renders no
 * token, and with `--read-only` refuses every write). Prompts changed elsewhere are noticed by a
 * light poll and announced (`prompts/list_changed`).
 */
import {StdioServerTransport} from '@modelcontextprotocol/sdk/server/stdio.js'
import {Client, type Backend} from '../client/backend.js'
import {agentBackend} from './agent-backend.js'
import {promptCatalog} from './prompts.js'
import {createMcpServer, listTools, tokenCost, toolCatalog} from './server.js'
import type {Group} from './tools.js'

export interface StdioOptions {
  groups: Group[]
  readOnly: boolean
  allowDeletes: boolean
  version: string
  /** Seconds between looks for changed prompts (0: never). */
  watchSeconds: number
}

/** The client of an agent's calls (agent-backend.ts). */
export function clientFor(backend: Backend, readOnly: boolean): Client {
  return new Client(agentBackend(backend, readOnly))
}

/** Serves MCP on stdin/stdout until stdin ends; logs one line per tool call on stderr. */
export async function serveStdio(backend: Backend, options: StdioOptions): Promise<void> {
  const client = clientFor(backend, options.readOnly)
  const log = (line: string) => process.stderr.write(line + '\n')
  const server = createMcpServer({client, ...options, canAsk: true, log})
  const transport = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve()
    process.stdin.once('end', () => void server.close())
    process.stdin.once('close', () => void server.close())
  })
  // The watcher's first look is taken before the client is answered: a change made once the
  // connection is up is always a change to it.
  const timer = options.watchSeconds > 0 ? await watchPrompts(client, () => server.sendPromptListChanged(), options.watchSeconds) : undefined
  await server.connect(transport)
  await closed
  if (timer) clearInterval(timer)
}

/** Calls `changed` when the prompts the user sees change (added, edited, removed); resolves after the first look. */
async function watchPrompts(client: Client, changed: () => Promise<void>, seconds: number): Promise<NodeJS.Timeout> {
  let last: string | undefined
  let busy = false
  const look = async () => {
    if (busy) return
    busy = true
    try {
      const prompts = await client.call('listPrompts')
      // What an MCP prompt is made of, not `updated_at`: two edits within one clock tick still differ.
      const now = prompts.map((p) => JSON.stringify([p.id, p.code, p.name, p.kind, p.scope, p.scope_id, p.content])).sort().join('\n')
      if (last !== undefined && now !== last) await changed()
      last = now
    } catch {
      // The next look tries again (a busy or restarting server).
    } finally {
      busy = false
    }
  }
  await look()
  const timer = setInterval(look, seconds * 1000)
  timer.unref()
  return timer
}

export interface Preview {
  tools: {name: string; group: string; kind: string; tokens: number}[]
  tools_tokens: number
  prompts: {name: string; arguments: {name: string; required: boolean}[]}[]
  prompts_tokens: number
}

/** What a client would see: the listed tools with their token cost (characters / 4), and the prompts. */
export async function preview(backend: Backend, options: Pick<StdioOptions, 'groups' | 'readOnly' | 'allowDeletes'>): Promise<Preview> {
  const client = clientFor(backend, options.readOnly)
  const [catalog, prompts] = await Promise.all([toolCatalog(client), promptCatalog(client)])
  const list = listTools(catalog, options)
  const promptList = {prompts: prompts.map((p) => ({name: p.code, title: p.name, description: p.description, arguments: p.arguments}))}
  return {
    tools: list.tools.map((t) => ({
      name: t.name, group: t.name.split('_')[0]!, kind: t.annotations?.destructiveHint ? 'delete' : t.annotations?.readOnlyHint ? 'read' : 'write', tokens: tokenCost(t),
    })),
    tools_tokens: tokenCost(list),
    prompts: prompts.map((p) => ({name: p.code, arguments: p.arguments.map((a) => ({name: a.name, required: a.required}))})),
    prompts_tokens: tokenCost(promptList),
  }
}
