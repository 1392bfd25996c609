/**
 * `svc app dev` forwards the app's calls (`/svc/db/*`, actions, connectors) to the backend with the
 * developer's token, so a request another site's page makes must never reach it: a link or a form
 * from another site, a `no-cors` POST from another local origin. Every forwarded call (reads too:
 * they run with the developer's token) must be a same-origin, non-navigation request of the dev
 * server's own page, or come from a client that is not a browser (curl: no Fetch Metadata, no
 * Origin) — the rule of src/core/auth/cross-site.ts. A page on a DNS name rebound to 127.0.0.1 is
 * refused by Vite's own Host check (`server.allowedHosts`), which runs before the proxy.
 */
import {crossSiteWriteRefusal} from '../core/auth/cross-site.js'

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v)

/** Why a forwarded request is refused (403), or null. */
export function devRequestRefusal(headers: Record<string, string | string[] | undefined>): string | null {
  const why = crossSiteWriteRefusal({
    host: first(headers.host) ?? '',
    secFetchSite: first(headers['sec-fetch-site']),
    secFetchMode: first(headers['sec-fetch-mode']),
    origin: first(headers.origin),
    referer: first(headers.referer),
  })
  return why && `${why}; svc app dev forwards your token to the backend`
}
