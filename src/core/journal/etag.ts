/** The entity tag of a resource's version, per kind: the same tag its own routes answer (docs/api.md "ETag and If-Match"). */
import {dbEtag, recordEtag} from '../dbs/etag.js'
import {appEtag, dashboardEtag, entityTag, promptEtag} from '../etag.js'
import type {JournalKind} from './types.js'

export function versionEtag(kind: JournalKind, view: unknown): string {
  const v = view as never
  switch (kind) {
    case 'prompt': return promptEtag(v)
    case 'app': return appEtag(v)
    case 'dashboard': return dashboardEtag(v)
    case 'db': return dbEtag(v)
    case 'record': return recordEtag(v)
    default: return entityTag(kind === 'cron' ? 'c' : 'x', (view as {id: number}).id, [view])
  }
}
