/**
 * The journal's routes (decisions.md "History, backups and live feeds"; docs/history.md): the
 * history of the account (what the caller may read of it), one entry with its version and the one
 * before, restoring an entry's version, and restoring everything changed since a time. Reading a
 * version follows the resource's own read rules; a restore needs the kind's write permission.
 */
import type {Context} from 'hono'
import type {Principal} from '../../core/auth/permissions.js'
import {historyRoutes as routes} from '../../core/contract/routes.js'
import {forbidden, notFound, preconditionFailed, validation} from '../../core/errors.js'
import {ifMatchHolds} from '../../core/etag.js'
import {canReadVersion, restoreRefusal} from '../../core/journal/access.js'
import {diffVersions} from '../../core/journal/diff.js'
import {versionEtag} from '../../core/journal/etag.js'
import {bookmarkOf, type JournalEntry, type JournalEntryDetail, seqOf} from '../../core/journal/types.js'
import type {StoredEntry} from '../../store/journal/repo.js'
import {createRouter, handle, param} from '../router.js'
import type {AppEnv, Deps} from '../env.js'
import {requireUser} from '../middleware/auth.js'

/** Rounds of reading when entries the caller may not read are left out of a page. */
const MAX_ROUNDS = 10

export function historyRoutes(deps: Deps) {
  const app = createRouter()
  const journal = deps.store.journal

  const entryOf = (e: StoredEntry): JournalEntry => ({
    bookmark: bookmarkOf(e.seq), kind: e.kind, id: e.id, op: e.op, door: e.door, client: e.client, actor: e.actor, at: e.at,
    summary: e.summary, ...(e.kind === 'record' && e.parentId !== null ? {db_id: Number(e.parentId)} : {}), request_id: e.requestId,
  })
  /**
   * Whether the caller may read an entry: its version, and the resource as it is now (a prompt made
   * private since, another user's dashboard: its history goes with it). Kinds every user of the
   * account reads need no look at the current row; a request asks once per resource.
   */
  const mayRead = async (user: Principal, e: StoredEntry, seen = new Map<string, boolean>()): Promise<boolean> => {
    if (!canReadVersion(user, e.kind, e.state)) return false
    if (e.kind !== 'prompt' && e.kind !== 'dashboard') return true
    const key = `${e.kind}:${e.id}`
    let now = seen.get(key)
    if (now === undefined) {
      const current = await journal.current(user.accountId, e.kind, e.id)
      now = current === null || canReadVersion(user, e.kind, current)
      seen.set(key, now)
    }
    return now
  }
  /** The entry of `:bookmark` the caller may read, else 404. */
  const readable = async (c: Context<AppEnv>, user: Principal): Promise<StoredEntry> => {
    const seq = seqOf(param(c, 'bookmark'))
    const entry = seq === null ? null : await journal.get(user.accountId, seq)
    if (!entry || !(await mayRead(user, entry))) throw notFound('history entry not found')
    return entry
  }

  handle(app, routes.listHistory, async (c, {query}) => {
    const user = requireUser(c)
    const limit = query.limit === undefined ? 20 : Number(query.limit)
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw validation({limit: ['must be an integer from 1 to 100']})
    let before: number | undefined
    if (query.before !== undefined) {
      const seq = seqOf(query.before)
      if (seq === null) throw validation({before: ['must be a bookmark']})
      before = seq
    }
    let parentId: string | undefined
    if (query.db !== undefined) {
      if (/^\d+$/.test(query.db)) parentId = String(Number(query.db))
      else {
        const db = await deps.store.dbs.get(user.accountId, query.db, {count: false})
        if (!db) return c.json([])
        parentId = String(db.id)
      }
    }
    const filter = {
      kinds: query.kind ? [query.kind] : parentId !== undefined ? ['record' as const] : undefined,
      id: query.id, parentId, op: query.op, door: query.door, client: query.client, actorId: query.actor_id,
      since: isoOf('since', query.since), until: isoOf('until', query.until),
    }
    // Entries the caller may not read are left out; reading goes on until the page is full.
    const out: JournalEntry[] = []
    const seen = new Map<string, boolean>()
    for (let round = 0; round < MAX_ROUNDS && out.length < limit; round++) {
      const batch = await journal.list(user.accountId, {...filter, before, limit: limit * 2})
      for (const e of batch) {
        if (out.length === limit) break
        if (await mayRead(user, e, seen)) out.push(entryOf(e))
      }
      if (batch.length < limit * 2) break
      before = batch[batch.length - 1]!.seq
    }
    return c.json(out)
  })

  handle(app, routes.getHistoryEntry, async (c, {query}) => {
    const user = requireUser(c)
    const entry = await readable(c, user)
    const version = entry.gone || !entry.state ? null : journal.view(entry.kind, entry.state)
    let previous: unknown = null
    if (entry.gone) previous = entry.state && journal.view(entry.kind, entry.state)
    else {
      const before = await journal.previous(entry)
      if (before && !before.gone && before.state && canReadVersion(user, before.kind, before.state)) previous = journal.view(before.kind, before.state)
    }
    const detail: JournalEntryDetail & {diff?: unknown} = {...entryOf(entry), version, previous}
    if (query.diff === '1' || query.diff === 'true') detail.diff = diffVersions(entry.kind, previous, version)
    return c.json(detail)
  })

  handle(app, routes.restoreEntry, async (c) => {
    const user = requireUser(c)
    const entry = await readable(c, user)
    const why = restoreRefusal(user, entry.kind)
    if (why) throw forbidden(why)
    const header = c.req.header('if-match')
    const check = header === undefined ? undefined : (current: unknown) => ifMatchHoldsOrThrow(header, current === null ? null : versionEtag(entry.kind, current), current)
    const written = await journal.restore(user.accountId, entry.seq, journal.context.current(), check)
    if (!written) throw notFound('history entry not found')
    return c.json({
      bookmark: bookmarkOf(written.seq), kind: written.kind, id: written.id,
      version: written.gone || !written.state ? null : journal.view(written.kind, written.state),
    })
  })

  handle(app, routes.restoreSince, async (c, {body}) => {
    const user = requireUser(c)
    const since = isoOf('since', body.since)!
    const outcome = await journal.restoreSince(user.accountId, {
      since, door: body.door, client: body.client, actorId: body.actor_id, kind: body.kind, dryRun: body.dry_run === true,
      may: (kind, row) => (row && !canReadVersion(user, kind, row) ? 'not found' : restoreRefusal(user, kind)),
    }, journal.context.current())
    return c.json({
      restored: outcome.restored.map((r) => ({...r, bookmark: r.bookmark === null ? null : bookmarkOf(r.bookmark)})),
      conflicts: outcome.conflicts,
    })
  })
  return app
}

/** An ISO 8601 time of a query or body member, normalized (UTC, milliseconds), else 422. */
function isoOf(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN
  if (Number.isNaN(ms)) throw validation({[name]: ['must be an ISO 8601 date-time']})
  return new Date(ms).toISOString()
}

/** If-Match against the resource as it is now: 412 with its tag and version when it no longer holds (or the resource is gone). */
function ifMatchHoldsOrThrow(header: string, etag: string | null, current: unknown): void {
  if (etag !== null && ifMatchHolds(header, etag)) return
  throw preconditionFailed('the resource changed since you read it (If-Match does not match its ETag); nothing was restored', {etag, current})
}
