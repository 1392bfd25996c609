/** What the history commands share: the time flags, a resource reference as the API filters it, an entry's line. */
import type {Client} from '../client/backend.js'
import {dashboardId, dbId, resolvePromptId} from '../client/refs.js'
import {SvcError} from '../core/errors.js'
import type {JournalEntry, JournalKind} from '../core/journal/types.js'
import {parseSince} from '../core/journal/time.js'

/** `--since 1h` or an ISO time; a usage error otherwise. */
export function sinceFlag(value: string | undefined, flag = '--since'): string | undefined {
  if (value === undefined) return undefined
  const at = parseSince(value)
  if (!at) throw new SvcError('usage', 0, `${flag}: not a time: "${value}"`, undefined, 'give an ISO 8601 time (2026-01-31T12:00:00Z) or an age (30m, 2h, 7d)')
  return at
}

/** The query members that pick one resource (or a db's records: `record DB` or `record DB/ID`). */
export async function refQuery(client: Client, kind: JournalKind, ref: string): Promise<{id?: string; db?: string}> {
  switch (kind) {
    case 'prompt': return {id: await resolvePromptId(client, ref)}
    case 'db': return {id: await dbId(client, ref)}
    case 'dashboard': return {id: String(await dashboardId(client, ref))}
    case 'app': {
      if (/^[0-9a-f-]{36}$/i.test(ref)) return {id: ref.toLowerCase()}
      const apps = await client.call('listApps', {query: {q: ref}})
      const app = apps.find((a) => a.url_code === ref || a.name === ref)
      if (!app) throw new SvcError('not_found', 404, `app not found: ${ref}`)
      return {id: app.id}
    }
    case 'record': {
      const [db, id] = ref.split('/')
      return {db: db!, ...(id ? {id} : {})}
    }
    default: return {id: ref}
  }
}

/** One line of history: bookmark, time, op, door (client), who, summary. */
export function entryLine(e: JournalEntry): string {
  const door = e.client ? `${e.door}:${e.client}` : e.door
  const who = e.actor.name ?? (e.actor.type === 'visitor' ? 'visitor' : e.actor.id ?? '-')
  return `${e.bookmark}  ${e.at.replace('T', ' ').slice(0, 19)}  ${e.op.padEnd(7)}  ${door.padEnd(12)}  ${who.padEnd(12)}  ${e.summary}`
}
