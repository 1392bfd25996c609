/**
 * Whether a browser made a state-changing request on purpose from a page of the same origin, read from
 * what the browser says about it (Fetch Metadata: `Sec-Fetch-Site`, `Sec-Fetch-Mode`) and from `Origin`
 * and `Referer`. Pure rule; src/http/middleware/cross-site-writes.ts applies it to writes carried by a
 * cookie. docs/security.md "Writes carried by a cookie".
 */

export interface RequestProvenance {
  /** `host[:port]` the request was sent to. */
  host: string
  secFetchSite?: string
  secFetchMode?: string
  origin?: string
  referer?: string
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host.toLowerCase()
  } catch {
    return null
  }
}

/**
 * Why the request may not change anything on the strength of a cookie, or null when it may:
 * - a navigation (a link, a form, a frame, a typed or mailed URL) never writes: `Sec-Fetch-Mode: navigate`;
 * - another origin's page never writes: `Sec-Fetch-Site` other than `same-origin`;
 * - an `Origin` (or, without one, a `Referer`) naming another host, or `Origin: null`, never writes.
 * A client that sends none of these headers is not a browser (curl, a script): nothing forges its
 * requests, and it is allowed. The host is compared without the scheme: behind a TLS proxy the server
 * sees http while the browser names https.
 */
export function crossSiteWriteRefusal(r: RequestProvenance): string | null {
  const mode = r.secFetchMode?.toLowerCase()
  if (mode && mode.includes('navigate')) return 'cross-site request refused: this request cannot be made by a navigation (a link, a form or a typed address)'
  const site = r.secFetchSite?.toLowerCase()
  if (site && site !== 'same-origin') return `cross-site request refused: only a page of this origin may make this request (Sec-Fetch-Site: ${site.slice(0, 20)})`
  const from = r.origin ?? r.referer
  if (from !== undefined && hostOf(from) !== r.host.toLowerCase()) return 'cross-site request refused: only a page of this origin may make this request'
  return null
}
