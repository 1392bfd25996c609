/**
 * `GET /svc/db/:db_code/subscribe`: the public live feed of a database (docs/realtime.md "The public
 * subscribe method"), answered by publicDbRoutes (public.ts) once the db, its method and the
 * visitor are known. The feed is the hub's (services/feeds): one reader of the journal per
 * instance, entries matched here in memory against the visitor's scope — the value the server
 * rendered for this visitor, compared with the record as the journal holds it (for a delete, the row
 * removed). Browser requests of another origin are refused whatever they carry, a visitor and a
 * client address hold a bounded number of open feeds, and a change of the db's code or public
 * methods ends the stream (the client reconnects; the new configuration decides).
 */
import type {Context} from 'hono'
import {getCookie} from 'hono/cookie'
import {crossSiteWriteRefusal} from '../../../core/auth/cross-site.js'
import {badRequest, forbidden, rateLimited} from '../../../core/errors.js'
import {type MethodOptions, SUBSCRIBE_PARAMS} from '../../../core/dbs/public-methods.js'
import {endsPublicFeed, publicChange, publicFeedMatcher} from '../../../core/dbs/public-feed.js'
import {searchTable} from '../../../core/dbs/query.js'
import {planSchema} from '../../../core/dbs/schema.js'
import {quotasOf} from '../../../core/quotas.js'
import {bookmarkOf} from '../../../core/journal/types.js'
import {RESYNC_REASONS, resumePoint, sseFrame, sseHeartbeat} from '../../../core/feeds/events.js'
import {every, SSE_HEADERS, SseStream} from '../../sse.js'
import type {Subscription} from '../../../services/feeds/index.js'
import type {StoredEntry} from '../../../store/journal/repo.js'
import type {DbView} from '../../../core/contract/dbs.js'
import {JOURNAL_TABLES} from '../../../store/journal/tables.js'
import {appSessionKind, READ_ONLY_TOKEN} from '../../../store/accounts/types.js'
import {isHttps} from '../../client-ip.js'
import {APP_SESSION_COOKIE} from '../../app-origin/routes.js'
import {SESSION_COOKIE, sessionCookiePrefix} from '../../middleware/auth.js'
import type {AppEnv, Deps} from '../../env.js'

export interface SubscribeCall {
  db: DbView & {account_id: number}
  options: MethodOptions
  scope?: {field: string; value: string}
  /** The visitor the per-visitor quota counts: their signed cookie key, else their address. */
  visitorKey: string
  ip: string
  /** The `table_name` parameter as sent (used only when the method allows it). */
  tableName?: string
  /** The scope's value is the signed-in user's (`{user_id}`, `{user_name}`): re-checked while the feed is open. */
  userScoped?: boolean
}

/** One client address may hold this many times a visitor's open feeds (a household or an office behind one address). */
export const FEEDS_PER_IP_FACTOR = 8

/**
 * Refuses (403) a browser request that another origin's page made, with or without cookies: a feed
 * is read by the app's own page (`Sec-Fetch-Site: same-origin`), a typed address (`none`) or a
 * client that is not a browser. A cross-site page gets nothing of a visitor's scope, not even one
 * selected by `{ip}` (which needs no cookie).
 */
export function crossSiteFeedRefusal(c: Context<AppEnv>): string | null {
  const site = c.req.header('sec-fetch-site')?.toLowerCase()
  return crossSiteWriteRefusal({
    host: new URL(c.req.url).host,
    secFetchSite: site === 'none' ? undefined : site,
    origin: c.req.header('origin'),
    referer: site === 'none' ? undefined : c.req.header('referer'),
  })
}

/**
 * For a feed scoped by the signed-in user (`{user_id}`, `{user_name}`): how to ask again whether
 * that sign-in still holds — the app's sign-in on its origin, a bearer token, a console session —
 * so a revoked one stops receiving within `feeds.recheckMs`. Null without a user.
 */
function signInCheck(c: Context<AppEnv>, deps: Deps): (() => Promise<boolean>) | null {
  const user = c.get('user')
  if (!user) return null
  const accounts = deps.store.accounts
  const readOnly = !!c.get('readOnly')
  const same = (p: {id: number; accountId: number} | null) => p !== null && p.id === user.id && p.accountId === user.accountId
  switch (c.get('authVia')) {
    case 'app': {
      const app = c.get('hostedApp')
      const raw = getCookie(c, APP_SESSION_COOKIE, isHttps(c, deps) ? 'host' : undefined)
      return async () => !!app && !!raw && same(await accounts.authenticate(raw, appSessionKind(app.id, readOnly)))
    }
    case 'bearer': {
      const token = c.get('token')
      return async () => !!token && same(await accounts.authenticate(token, readOnly ? READ_ONLY_TOKEN : undefined))
    }
    case 'session': {
      const session = getCookie(c, SESSION_COOKIE, sessionCookiePrefix(c, deps))
      return async () => !!session && same(await accounts.authenticate(session, 'session'))
    }
    default:
      return async () => same(await accounts.principal(user.id))
  }
}

const recordView = (row: Record<string, unknown>) => JOURNAL_TABLES.record.view(row) as {id: number; data: unknown; created_at: string; updated_at: string}

export function publicSubscribe(deps: Deps) {
  const quotas = quotasOf(deps.quotas)
  // An entry reads as the same bytes for every visitor it reaches (the hub hands every subscriber the same object): shaped and encoded once.
  const frames = new WeakMap<StoredEntry, Uint8Array>()
  return async (c: Context<AppEnv>, call: SubscribeCall): Promise<Response> => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') throw badRequest('subscribe is read with GET (an EventSource), not POST; from the command line: svc db watch')
    const refusal = crossSiteFeedRefusal(c)
    if (refusal) throw forbidden(refusal.replace('this request', 'this feed'))
    if (c.req.method === 'HEAD') return c.body(null, 200, SSE_HEADERS)
    const {db, options, scope} = call
    const allowed = new Set<string>(options.allowed_params ?? SUBSCRIBE_PARAMS)
    const given = allowed.has('table_name') && call.tableName !== undefined && call.tableName !== '' ? call.tableName : undefined
    // No table: every table's records. A table named must be one of the db's (400 naming them).
    const tableName = given === undefined ? undefined : (searchTable(planSchema(db.schema), given).tableName ?? undefined)
    const resume = resumePoint(c.req.header('last-event-id'), new URL(c.req.url).searchParams.get('last_event_id'))

    const feeds = deps.services.feeds
    const perVisitor = quotas.feeds_per_visitor
    const taken = feeds.connections.acquire([
      ['server', quotas.feeds_per_server],
      [`account:${db.account_id}`, quotas.feeds_per_account],
      [`visitor:${call.visitorKey}`, perVisitor],
      [`visitor-ip:${call.ip}`, perVisitor > 0 ? perVisitor * FEEDS_PER_IP_FACTOR : 0],
    ])
    if ('full' in taken) {
      const key = taken.full
      throw rateLimited(key === 'server' ? `too many live feeds open on this server: at most ${quotas.feeds_per_server} at once (feeds_per_server); retry later`
        : key.startsWith('account:') ? `too many live feeds open for this account: at most ${quotas.feeds_per_account} at once (feeds_per_account); close one or retry later`
        : key.startsWith('visitor:') ? `too many open feeds; at most ${perVisitor} per visitor (close another tab of this app)`
        : `too many open feeds; at most ${perVisitor * FEEDS_PER_IP_FACTOR} per client address`, 5)
    }

    const matches = publicFeedMatcher({accountId: db.account_id, dbId: db.id, scope, tableName})
    // A scope that is the signed-in user's holds only while that sign-in does.
    const check = scope && scope.value !== '' && call.userScoped ? signInCheck(c, deps) : null
    let stopRecheck: (() => void) | undefined
    const dbKey = String(db.id)
    let subscription: Subscription | undefined
    const stream = new SseStream({
      heartbeatMs: feeds.heartbeatMs,
      maxQueueBytes: quotas.feed_queue_bytes,
      overflowFrame: () => sseFrame({event: 'resync', id: subscription ? bookmarkOf(subscription.position()) : undefined, data: {reason: RESYNC_REASONS.slow}}),
      heartbeatId: () => (subscription ? bookmarkOf(subscription.position()) : undefined),
      onClose: () => {
        stopRecheck?.()
        subscription?.close()
        taken.release()
      },
    })
    if (check) stopRecheck = every(feeds.recheckMs, () => void check().then((ok) => ok || stream.end(), () => undefined))
    if (resume === 'invalid') stream.write(sseFrame({event: 'resync', data: {reason: RESYNC_REASONS.invalid}}))
    try {
      const opened = feeds.hub.subscribe({
        accountId: db.account_id,
        after: resume === 'invalid' ? null : resume,
        // The db's own entries too: a change of its code or public methods ends the stream.
        match: (e) => (e.kind === 'db' ? e.id === dbKey : matches(e)),
        deliver: (e) => {
          if (e.kind === 'db') {
            // Its bookmark goes with the end: the reconnect resumes after it and is not ended by it again.
            if (endsPublicFeed(e, db.account_id, db.id, db.public_methods, db.code)) stream.end(sseHeartbeat(bookmarkOf(e.seq)))
            return
          }
          let frame = frames.get(e)
          if (!frame) {
            const change = publicChange(e, recordView)
            frames.set(e, (frame = Buffer.from(sseFrame({event: change.event, id: bookmarkOf(e.seq), data: change.data}))))
          }
          stream.write(frame)
        },
        resync: (reason, head) => void stream.write(sseFrame({event: 'resync', id: bookmarkOf(head), data: {reason}})),
        ended: () => stream.end(),
      })
      subscription = opened
      // Answered once the feed is live (what followed Last-Event-ID replayed): a page that lists after
      // its EventSource opened misses nothing written in between.
      await opened.ready
    } catch (error) {
      stream.end()
      throw error
    }
    // Through the context: the visitor cookie set for this request goes with the stream's headers.
    return c.body(stream.body, 200, SSE_HEADERS)
  }
}
