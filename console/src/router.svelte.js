// Hash routing: every screen has its own URL (`#/dbs/people?q=ada`), so back/forward and a shared
// link land on the same screen with the same query. The server only serves `/`, hence the hash.

/** `#/a/b?x=1` → {path: ['a', 'b'], query: URLSearchParams}. */
export function parseHash(hash) {
  const raw = hash.replace(/^#\/?/, '')
  const at = raw.indexOf('?')
  const path = (at < 0 ? raw : raw.slice(0, at)).split('/').filter(Boolean).map((s) => {
    try {
      return decodeURIComponent(s)
    } catch {
      return s
    }
  })
  return {path, query: new URLSearchParams(at < 0 ? '' : raw.slice(at + 1))}
}

/** The hash of a screen: path segments and query parameters (empty values left out). */
export function href(path, query) {
  const segments = path.map((s) => encodeURIComponent(String(s))).join('/')
  const params = new URLSearchParams()
  for (const [k, v] of query instanceof URLSearchParams ? query : Object.entries(query ?? {})) if (v !== '' && v !== undefined && v !== null) params.append(k, String(v))
  const search = params.toString()
  return `#/${segments}${search ? `?${search}` : ''}`
}

export const route = $state(parseHash(location.hash))

addEventListener('hashchange', () => Object.assign(route, parseHash(location.hash)))

/** Goes to a screen as a new history entry (a link would do the same). */
export function navigate(hash) {
  if (location.hash !== hash) location.hash = hash
}
