/**
 * The routes of the private records API and feed that an app's members may also call on the app's
 * own origin, for the db the app declares (docs/security.md "Apps on their own origin"): the same
 * paths as on the main origin. Pure: the app origin (src/http/app-origin/routes.ts) and `svc app dev`
 * (src/dev/server.ts) both ask it.
 */

const MEMBERS_PATH = /^\/svc\/dbs\/([^/]+)\/(records\.json|records\/[^/]+\.json|search\.json|changes)$/

/**
 * The db key (its id or code, decoded) a members' route names, or null when `method path` is not
 * one: `GET|POST records.json`, `GET|PATCH|DELETE records/<id>.json`, `GET search.json`, `GET changes`
 * (HEAD as GET). Never the db itself, its usage, plan or import.
 */
export function membersRoute(method: string, path: string): string | null {
  const m = MEMBERS_PATH.exec(path)
  if (!m) return null
  const [, key, rest] = m
  const read = method === 'GET' || method === 'HEAD'
  const allowed = rest === 'records.json' ? read || method === 'POST'
    : rest!.startsWith('records/') ? read || method === 'PATCH' || method === 'DELETE'
      : read
  if (!allowed) return null
  try {
    return decodeURIComponent(key!)
  } catch {
    return null
  }
}
