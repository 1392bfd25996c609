/**
 * Private live feeds (docs/realtime.md "Private feeds"; decisions.md "Live feeds"):
 * - `GET /svc/dbs/:db_id/changes` — the db's record changes as Server-Sent Events (`create`,
 *   `update`, `delete`, `resync`; `id:` the journal bookmark); query `table_name`, `record_id`;
 * - `GET /svc/changes` — the account's journal entries the caller may read, in the
 *   `/svc/history.json` entry shape (unnamed events); query `kind`, `id`, `db`.
 * Both resume from `Last-Event-ID` (or a `last_event_id` query). Permission is the records API's
 * read permission (the history's read rules for the account feed), decided once when the stream
 * opens and checked again every `recheckMs` (a revoked token, a removed user) and on the db's own
 * journal entries (a deleted db ends its feed): in memory per event, never a query per event.
 */
import {getCookie} from 'hono/cookie'
import type {Context} from 'hono'
import type {Principal} from '../../core/auth/permissions.js'
import {changeEvent, historyEntryOf, recordMatcher, resumePoint, sseFrame} from '../../core/feeds/events.js'
import {canReadVersion} from '../../core/journal/access.js'
import {bookmarkOf, JOURNAL_KINDS, type JournalKind} from '../../core/journal/types.js'
import {badRequest} from '../../core/errors.js'
import {quotasOf} from '../../core/quotas.js'
import {appSessionKind, READ_ONLY_TOKEN} from '../../store/accounts/types.js'
import type {StoredEntry} from '../../store/journal/repo.js'
import {createRouter} from '../router.js'
import type {AppEnv, Deps} from '../env.js'
import {requireUser, SESSION_COOKIE, sessionCookiePrefix} from '../middleware/auth.js'
import {dbLoader, flatQuery, loadedDb} from './dbs/shared.js'
import {SSE_HEADERS, streamFeed} from '../sse.js'
import {APP_SESSION_COOKIE} from '../app-origin/routes.js'
import {isHttps} from '../client-ip.js'

/** What a feed route gives `openFeed`: who reads, what it carries, how an entry reads as an event. */
interface FeedSpec {
  user: Principal
  match(entry: StoredEntry, user: Principal): boolean
  frame(entry: StoredEntry): string | Uint8Array
  /** Whether the feed must end at this entry (its db deleted). */
  ends?(entry: StoredEntry): boolean
}

export function changesRoutes(deps: Deps) {
  const app = createRouter()
  const quotas = quotasOf(deps.quotas)
  const view = (row: Record<string, unknown>) => deps.store.journal.view('record', row)
  // An entry reads as the same bytes for every feed it reaches: shaped and encoded once (the hub hands every subscriber the same object).
  const recordFrames = new WeakMap<StoredEntry, Uint8Array>()
  const historyFrames = new WeakMap<StoredEntry, Uint8Array>()
  const once = (cache: WeakMap<StoredEntry, Uint8Array>, e: StoredEntry, make: () => string) => {
    let bytes = cache.get(e)
    if (!bytes) cache.set(e, (bytes = Buffer.from(make())))
    return bytes
  }

  app.get('/svc/dbs/:db_id/changes', dbLoader(deps), (c) => {
    const {db, accountId} = loadedDb.get(c)
    const q = flatQuery(c)
    const tableName = q.table_name === undefined || q.table_name === '' ? undefined : q.table_name
    let recordId: number | undefined
    if (q.record_id !== undefined) {
      if (!/^\d{1,15}$/.test(q.record_id)) throw badRequest('record_id must be a record id')
      recordId = Number(q.record_id)
    }
    const matches = recordMatcher({accountId, dbId: db.id, tableName, recordId})
    const dbId = String(db.id)
    // On an app's origin (a member of the app, for its declared db only: src/http/app-origin/routes.ts)
    // any change of the app ends the feed: the browser reconnects from its last event, and the origin
    // checks again that the app is active and still declares this db.
    const appId = c.get('hostedApp')?.id
    return openFeed(c, deps, quotas.feeds_per_account, quotas.feeds_per_server, quotas.feed_queue_bytes, {
      user: requireUser(c),
      match: (e) => matches(e),
      frame: (e) => once(recordFrames, e, () => sseFrame(changeEvent(e, view))),
      ends: (e) => (e.kind === 'db' && e.id === dbId && e.gone) || (appId !== undefined && e.kind === 'app' && e.id === appId),
    })
  })

  app.get('/svc/changes', (c) => {
    const user = requireUser(c)
    const q = flatQuery(c)
    if (q.kind !== undefined && !(JOURNAL_KINDS as readonly string[]).includes(q.kind)) {
      throw badRequest(`kind must be one of ${JOURNAL_KINDS.join(', ')}`)
    }
    const kind = q.kind as JournalKind | undefined
    const id = q.id === undefined || q.id === '' ? undefined : q.id
    const dbFilter = q.db === undefined || q.db === '' ? undefined : q.db
    if (dbFilter !== undefined && !/^\d{1,15}$/.test(dbFilter)) throw badRequest('db must be a db id')
    return openFeed(c, deps, quotas.feeds_per_account, quotas.feeds_per_server, quotas.feed_queue_bytes, {
      user,
      // The history's read rules, on the version the entry wrote (for a delete: the one it removed).
      match: (e, now) => (kind === undefined || e.kind === kind) && (id === undefined || e.id === id)
        && (dbFilter === undefined || (e.kind === 'record' && e.parentId === dbFilter) || (e.kind === 'db' && e.id === dbFilter))
        && canReadVersion(now, e.kind, e.state),
      frame: (e) => once(historyFrames, e, () => sseFrame({id: bookmarkOf(e.seq), data: historyEntryOf(e)})),
    })
  })
  return app
}

/** Opens a private feed: the account's and the server's quota slots, and the caller checked again every `recheckMs`. */
function openFeed(c: Context<AppEnv>, deps: Deps, perAccount: number, perServer: number, queueBytes: number, spec: FeedSpec): Promise<Response> {
  // A HEAD (answered as a GET whose body is dropped) would hold a feed and a quota slot no one reads: the headers only.
  if (c.req.method === 'HEAD') return Promise.resolve(c.body(null, 200, SSE_HEADERS))
  const accountId = spec.user.accountId
  let user = spec.user
  const again = credentialsOf(c, deps)
  return streamFeed(deps.services.feeds, {
    accountId,
    slots: [[`account:${accountId}`, perAccount], ['server', perServer]],
    full: (key) => key === 'server'
      ? `too many live feeds open on this server: at most ${perServer} at once (feeds_per_server); retry later`
      : `too many live feeds open for this account: at most ${perAccount} at once (feeds_per_account); close one or retry later`,
    resume: resumePoint(c.req.header('last-event-id'), new URL(c.req.url).searchParams.get('last_event_id')),
    queueBytes,
    match: (e) => spec.match(e, user),
    frame: spec.frame,
    ends: spec.ends,
    // The caller may still read: their credentials still name a user of the account (cached reads: no query while nothing changed).
    recheck: async () => {
      const now = await again()
      if (!now || now.accountId !== accountId) return false
      user = now
      return true
    },
  })
}

/** Reads the caller's identity again from what identified this request. */
function credentialsOf(c: Context<AppEnv>, deps: Deps): () => Promise<Principal | null> {
  const accounts = deps.store.accounts
  const via = c.get('authVia')
  const user = c.get('user')!
  if (via === 'bearer') {
    const token = c.get('token')!
    const readOnly = !!c.get('readOnly')
    return () => accounts.authenticate(token, readOnly ? READ_ONLY_TOKEN : undefined)
  }
  if (via === 'session') {
    const session = getCookie(c, SESSION_COOKIE, sessionCookiePrefix(c, deps))
    return async () => (session ? accounts.authenticate(session, 'session') : null)
  }
  const hosted = c.get('hostedApp')
  if (via === 'app' && hosted) {
    // A member on the app's origin (src/http/app-origin/routes.ts): their app sign-in still valid (a
    // change of the app itself ends the feed: see the route).
    const session = getCookie(c, APP_SESSION_COOKIE, isHttps(c, deps) ? 'host' : undefined)
    const kind = appSessionKind(hosted.id, !!c.get('readOnly'))
    return async () => (session ? accounts.authenticate(session, kind) : null)
  }
  return () => accounts.principal(user.id)
}
