/**
 * `svc mcp` over stdio notices prompts changed elsewhere (the console, another agent, the CLI) by a
 * light poll of the prompt list, and announces them (`notifications/prompts/list_changed`).
 */
import type {Client} from '../client/backend.js'

/** Calls `changed` when the prompts the user sees change (added, edited, removed); resolves after the first look. */
export async function watchPrompts(client: Client, changed: () => Promise<void>, seconds: number): Promise<NodeJS.Timeout> {
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
