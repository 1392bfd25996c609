import type {Transport} from './world.js'

export interface OpenedApp {
  /** The last answer (the page, or the redirect that left the app origins, e.g. to the login page). */
  res: Response
  html: string
  /** Absolute URLs of the page's script and stylesheet (on the app origin). */
  js?: string
  css?: string
  /** The URL of the last answer. */
  url: string
  /** The app origin's cookies collected on the way (`name=value; ...`), for later requests there. */
  cookie: string
}

const isAppOrigin = (url: URL) => url.hostname.endsWith('.localhost')

/**
 * Opens `/a/:key` on the main origin the way a browser does: follows the hand-over redirects onto the
 * app's own origin (keeping the cookies set there) and stops at a page or at a redirect elsewhere.
 * `headers` go with the first request only (the main origin's session cookie never reaches an app origin).
 */
export async function openApp(transport: Transport, path: string, headers: Record<string, string> = {}, appCookie = ''): Promise<OpenedApp> {
  let url = new URL(path, transport.origin)
  let res = await transport.fetch(/^https?:/.test(path) ? path : url.pathname + url.search, {headers, redirect: 'manual'})
  const jar = new Map<string, string>()
  for (const part of appCookie.split(';').map((s) => s.trim()).filter(Boolean)) jar.set(part.split('=')[0]!, part)
  for (let hops = 0; hops < 8 && res.status >= 300 && res.status < 400; hops++) {
    if (isAppOrigin(url)) for (const line of res.headers.getSetCookie()) jar.set(line.split('=')[0]!, line.split(';')[0]!)
    const next = new URL(res.headers.get('location')!, url)
    if (!isAppOrigin(next)) break
    url = next
    const cookie = [...jar.values()].join('; ')
    res = await transport.fetch(url.href, {headers: cookie ? {cookie} : {}, redirect: 'manual'})
  }
  if (isAppOrigin(url)) for (const line of res.headers.getSetCookie()) jar.set(line.split('=')[0]!, line.split(';')[0]!)
  const html = await res.text()
  const js = /src="(\/app\.[0-9a-f]+\.js)"/.exec(html)?.[1]
  const css = /href="(\/app\.[0-9a-f]+\.css)"/.exec(html)?.[1]
  return {res, html, url: url.href, cookie: [...jar.values()].join('; '), js: js && new URL(js, url).href, css: css && new URL(css, url).href}
}
