// @ts-check
// The journal's screens (docs/history.md "In the console"): what they read and write, through the
// typed client's history operations — `listHistory`, `getHistoryEntry`, `restoreEntry`,
// `restoreSince` — and the words and links they show. The diff of two versions and a version's
// ETag are the server's own code (src/core/journal/, exported by src/sdk.ts): the If-Match of a
// restore is the tag the resource's routes answer.
import {DOORS, JOURNAL_KINDS, versionEtag} from '../../../src/sdk.ts'
import {svc, tagged} from '../lib/client.js'
import {href} from '../router.svelte.js'

/** @typedef {import('../lib/types.ts').Item<'listHistory'>} HistoryEntry */
/** @typedef {import('../lib/types.ts').Out<'getHistoryEntry'>} HistoryDetail */
/** @typedef {import('../../../src/sdk.ts').JournalKind} JournalKind */

export {DOORS, JOURNAL_KINDS}

/** A kind as the screens name it. */
export const KIND_LABEL = /** @type {Record<JournalKind, string>} */ ({
  prompt: 'prompt', dashboard: 'dashboard', app: 'app', db: 'database', record: 'record', resource: 'connector or flow', cron: 'cron',
})

/** The ages a time filter offers (`since=1h` in a URL), in milliseconds. */
export const AGES = /** @type {const} */ ([['15m', 'the last 15 minutes'], ['1h', 'the last hour'], ['24h', 'the last 24 hours'], ['7d', 'the last 7 days'], ['30d', 'the last 30 days']])
const UNIT = {m: 60_000, h: 3_600_000, d: 86_400_000}

/** `since` of a URL (an age `1h` or an ISO time) as an ISO time, now; '' when none or not one. */
export function sinceTime(/** @type {string | null} */ since, now = Date.now()) {
  if (!since) return ''
  const age = /^(\d+)([mhd])$/.exec(since)
  if (age) return new Date(now - Number(age[1]) * UNIT[/** @type {'m'|'h'|'d'} */ (age[2])]).toISOString()
  const ms = Date.parse(since)
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString()
}

/**
 * A page of the journal, newest first.
 * @param {Record<string, string | number | undefined>} query kind, id, db, op, door, client, actor_id, since, until, before, limit
 * @returns {Promise<HistoryEntry[]>}
 */
export async function entries(query) {
  const q = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => [k, String(v)]))
  return /** @type {HistoryEntry[]} */ (await svc.listHistory(/** @type {any} */ ({query: q})))
}

/** One entry with its version and the one before; `diff` adds the server's diff between them. */
export async function entry(/** @type {string} */ bookmark, diff = false) {
  return /** @type {HistoryDetail} */ (await svc.getHistoryEntry({params: {bookmark}, query: diff ? {diff: '1'} : {}}))
}

/**
 * The version an entry brings back when restored: what it wrote, or for a delete (and a restore
 * that removed the resource) the version it removed.
 * @param {HistoryDetail} detail
 */
export const versionOf = (detail) => (detail.version ?? (detail.op === 'delete' || detail.op === 'restore' ? detail.previous : null) ?? null)

/**
 * The resource as it is now, from its newest entry: {entry, version} (version null when its newest
 * entry removed it), or null when the journal holds nothing of it.
 * @param {JournalKind} kind
 * @param {string} id
 */
export async function current(kind, id) {
  const [newest] = await entries({kind, id, limit: 1})
  if (!newest) return null
  const detail = await entry(newest.bookmark)
  return {entry: newest, version: /** @type {unknown} */ (detail.version ?? null)}
}

/**
 * Restores an entry's version. `current` is the resource as the screen showed it now: its ETag goes
 * as If-Match (a 412 when it changed since; nothing is restored). Throws the client's SvcError.
 * @param {HistoryEntry} of
 * @param {unknown} now the current version (null when the resource is gone: no If-Match)
 */
export async function restore(of, now) {
  const headers = now ? {'if-match': versionEtag(of.kind, now)} : {}
  const {body} = await tagged('restoreEntry', /** @type {any} */ ({params: {bookmark: of.bookmark}, headers}))
  return /** @type {import('../lib/types.ts').Out<'restoreEntry'>} */ (body)
}

/** Why a restore failed, in words: a 412 (changed since), a 422 (a code taken: the server says how to restore), else the message. */
export function restoreError(/** @type {any} */ e) {
  if (e?.status === 412) return 'It changed since this page read it (someone saved a newer version): nothing was restored. The list is reloaded: look again, then restore.'
  if (e?.status === 422 && e.details) {
    const d = /** @type {Record<string, string[]>} */ (e.details)
    const how = d.restore?.join(' ').replace(/^./, (c) => c.toUpperCase())
    const taken = Object.entries(d).filter(([k]) => k !== 'restore').map(([k, v]) => `${k} ${v.join(', ')}`).join('; ')
    return `Cannot restore: ${taken || e.message}.${how ? ` ${how}.` : ''} To restore it under another code, first give the resource now holding that code another code (or restore this one, then change its code), then restore again.`.replace('..', '.')
  }
  return e?.message ?? String(e)
}

/** The history screen of a resource. */
export const historyHref = (/** @type {string} */ kind, /** @type {string | number} */ id, /** @type {Record<string, string>} */ query = {}) => href(['history', kind, id], query)

/**
 * Where a resource is edited (null when no screen edits it, or it is gone).
 * @param {JournalKind} kind
 * @param {string} id
 * @param {any} version
 * @param {number} [dbId] records: their db
 */
export function editorHref(kind, id, version, dbId) {
  if (!version || typeof version !== 'object') return null
  switch (kind) {
    case 'prompt': return href(['prompts', version.code, id])
    case 'app': return href(['apps', id])
    case 'db': return version.code ? href(['dbs', version.code, 'schema']) : null
    case 'record': return href(['dbs', dbId ?? version.db_id, 'records', id])
    case 'dashboard': return href(['dashboards'], {context: version.context && version.context !== 'main' ? version.context : ''})
    case 'resource': return String(version.kind ?? '').includes('flow') ? href(['flows', id]) : href(['flows', 'connectors'])
    case 'cron': return href(['flows', 'crons'])
    default: return null
  }
}

/** A resource's name as a version shows it: name, code, else its kind and id. */
export function nameOf(/** @type {string} */ kind, /** @type {string} */ id, /** @type {any} */ version) {
  if (version && typeof version === 'object') {
    const name = version.name ?? version.code ?? version.url_code
    if (name) return kind === 'record' ? `record #${id}` : `${name}`
  }
  return `${KIND_LABEL[/** @type {JournalKind} */ (kind)] ?? kind} ${id}`
}

/** Who made an entry and through which door, in words. */
export const whoOf = (/** @type {HistoryEntry} */ e) => `${e.actor?.name ?? (e.actor?.type === 'user' ? 'someone' : e.actor?.type ?? 'someone')}`
export const doorOf = (/** @type {HistoryEntry} */ e) => `${e.door}${e.client ? ` (${e.client})` : ''}`
export const when = (/** @type {string} */ at) => new Date(at).toLocaleString()
