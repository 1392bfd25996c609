/**
 * Optimistic concurrency (docs/api.md "ETag and If-Match"): a resource's entity tag is a hash of
 * the version a reader saw. The server answers it in `ETag`; a write sent with `If-Match` that no
 * longer matches is a 412 carrying the current version, and nothing is written.
 *
 * Pure and dependency-free (no node:crypto): the console's bundle and the CLI compute the same tag
 * from a resource a list showed them (a list answers no ETag per row). The tag only has to change
 * when the resource does — it is no secret and no signature.
 */
import {isSvcError, preconditionFailed} from './errors.js'

/** Two 32-bit FNV-1a style lanes over the UTF-16 code units: 64 bits, as 16 hex digits. */
export function hash64(text: string): string {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ text.length
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
    b ^= b >>> 15
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0')
}

/** A strong entity tag, quoted as HTTP writes it: `"<kind><id>-<16 hex of the version's parts>"`. */
export function entityTag(kind: string, id: string | number, parts: unknown[]): string {
  return `"${kind}${id}-${hash64(JSON.stringify([id, ...parts]))}"`
}

/**
 * Whether an `If-Match` header holds for the current tag (RFC 9110 §13.1.1): no header holds;
 * `*` holds for any existing resource; otherwise one of the listed tags must equal it (strong
 * comparison: a weak `W/"…"` tag never matches).
 */
export function ifMatchHolds(header: string | undefined, current: string): boolean {
  if (header === undefined) return true
  const value = header.trim()
  if (value === '*') return true
  return value.split(',').map((t) => t.trim()).some((t) => t === current)
}

/**
 * The check a store runs inside its write, against the version it is about to change: a 412
 * `{error, etag, current}` when `If-Match` no longer matches (`current` as a reader sees it).
 * Undefined without If-Match: the write applies as before.
 */
export function ifMatchCheck<T>(header: string | undefined, what: string, tagOf: (current: T) => string, view: (current: T) => unknown = (c) => c):
  ((current: T) => void) | undefined {
  if (header === undefined) return undefined
  return (current) => {
    const etag = tagOf(current)
    if (!ifMatchHolds(header, etag)) {
      throw preconditionFailed(`the ${what} changed since you read it (If-Match does not match its ETag); nothing was written`, {etag, current: view(current)})
    }
  }
}

/** How often a write without If-Match is redone on a reloaded version before it answers the 412. */
export const MERGE_ATTEMPTS = 3

/**
 * A write (a PATCH, a replace) merged over the version the route loaded, that must apply to that
 * version only: the store's write runs `checkFor(tag)` against the stored version, inside its
 * write. With `If-Match`, the tag is the client's and a mismatch is its 412, never retried. Without,
 * the tag is the loaded version's: when another write changed it in between, the resource is
 * reloaded (`reload` re-runs the route's permission checks on it) and the merge and write are redone
 * on it, at most MERGE_ATTEMPTS times in all, then the 412 (so another field changed meanwhile is kept).
 */
export async function writeOnVersion<T, R>(options: {
  ifMatch: string | undefined
  /** What the resource is called in the 412 after MERGE_ATTEMPTS ('prompt'). */
  what: string
  loaded: T
  tagOf: (version: T) => string
  checkFor: (ifMatch: string) => (current: T) => void
  reload: () => Promise<T>
  write: (base: T, check: (current: T) => void) => Promise<R>
}): Promise<R> {
  const {ifMatch, tagOf, checkFor, reload, write} = options
  if (ifMatch !== undefined) return write(options.loaded, checkFor(ifMatch))
  let base = options.loaded
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(base, checkFor(tagOf(base)))
    } catch (error) {
      if (!isSvcError(error) || error.status !== 412) throw error
      if (attempt >= MERGE_ATTEMPTS) {
        // No If-Match was sent: not the client's tag failing, but the resource changing under every merge.
        throw preconditionFailed(
          `the ${options.what} changed again each of the ${MERGE_ATTEMPTS} times this change was applied over it; nothing was written. Send it again`,
          error.details)
      }
    }
    base = await reload()
  }
}

/** A prompt's tag: every member of its view (what GET, a list and the 412 show). */
export const promptEtag = (view: {id: string}): string => entityTag('p', view.id, [view])

/** An app's tag: every member of its view (what GET, a list and the 412 show; never its token). */
export const appEtag = (view: {id: string}): string => entityTag('a', view.id, [view])

/** A dashboard's tag: its stored members (the layout a viewer is shown may be filtered; the tag is of the stored one). */
export const dashboardEtag = (d: {id: number; name: string; context: string; layout: unknown; shared: boolean; is_default: boolean; created_by_id: number | null; updated_at: string}): string =>
  entityTag('b', d.id, [d.name, d.context, d.layout, d.shared, d.is_default, d.created_by_id, d.updated_at])
