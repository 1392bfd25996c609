/**
 * `svc mcp`: the MCP server over stdio for a local agent, calling the CLI's target (embedded data dir
 * or remote server) as the CLI would, through the agent backend (agent-backend.ts: the API renders no
 * token, and with `--read-only` refuses every write). Prompts changed elsewhere are noticed by a
 * light poll and announced (`prompts/list_changed`).
 */
import {StdioServerTransport} from '@modelcontextprotocol/sdk/server/stdio.js'
import type {Backend} from '../client/backend.js'
import {agentClient} from './agent-backend.js'
import {watchPrompts} from './prompt-watch.js'
import {createMcpServer} from './server.js'
import type {Group} from './tools.js'

export interface StdioOptions {
  groups: Group[]
  readOnly: boolean
  allowDeletes: boolean
  version: string
  /** Seconds between looks for changed prompts (0: never). */
  watchSeconds: number
}

/** Serves MCP on stdin/stdout until stdin ends; logs one line per tool call on stderr. */
export async function serveStdio(backend: Backend, options: StdioOptions): Promise<void> {
  let server: ReturnType<typeof createMcpServer> | undefined
  const client = agentClient(backend, options.readOnly, () => server?.getClientVersion()?.name)
  const log = (line: string) => process.stderr.write(line + '\n')
  server = createMcpServer({client, ...options, canAsk: true, log})
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
