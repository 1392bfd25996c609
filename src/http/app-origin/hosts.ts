/**
 * Which origin an app lives on, and whether a request is for an app origin. Each app has an origin
 * of its own (never the API's, the console's or another app's): `http://<label>.localhost:<port>` by
 * default (browsers resolve `*.localhost` to loopback), or the `--apps-url` template
 * (`https://{code}.apps.example.com`). The label is the app's url_code when that is a valid DNS label
 * and the app owns it, else the app's id (a UUID is a valid label too).
 */
import type {Context} from 'hono'
import {UUID_RE} from '../../core/apps/validate.js'
import type {AppRecord, AppsRepo} from '../../store/apps/types.js'
import type {AppEnv, Deps} from '../env.js'

export interface AppsUrl {
  protocol: string
  /** The host name after the app's label, with its leading dot (`.apps.example.com`). */
  suffix: string
  /** `:8443` or ''. */
  port: string
}

const PLACEHOLDER = 'svc-app-code-placeholder'
const LABEL_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/** Parses `--apps-url`; throws an Error with a readable message when it is not usable. */
export function parseAppsUrl(template: string): AppsUrl {
  if (!template.includes('{code}')) throw new Error('--apps-url must hold {code}, e.g. https://{code}.apps.example.com')
  let url: URL
  try {
    url = new URL(template.replace('{code}', PLACEHOLDER))
  } catch {
    throw new Error('--apps-url is not a URL')
  }
  if (!['http:', 'https:'].includes(url.protocol)) throw new Error('--apps-url must be http:// or https://')
  if (!url.hostname.startsWith(`${PLACEHOLDER}.`) || url.hostname.split('.').length < 3) {
    throw new Error('--apps-url: {code} must be the first label of a host with at least two more, e.g. {code}.apps.example.com')
  }
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) throw new Error('--apps-url takes an origin only (no path)')
  return {protocol: url.protocol, suffix: url.hostname.slice(PLACEHOLDER.length), port: url.port ? `:${url.port}` : ''}
}

/** The parsed `--apps-url` of a server (a few microseconds: parsed where needed, no cache shared between servers). */
function appsUrlOf(deps: Deps): AppsUrl | null {
  return deps.appsUrl ? parseAppsUrl(deps.appsUrl) : null
}

/** The app label of a request's host, or null when the request is for the main origin. */
export function appLabelOf(c: Context<AppEnv>, deps: Deps): string | null {
  const host = new URL(c.req.url).hostname.toLowerCase().replace(/\.$/, '')
  const suffix = appsUrlOf(deps)?.suffix ?? '.localhost'
  if (!host.endsWith(suffix)) return null
  const label = host.slice(0, -suffix.length)
  return label.length > 0 && !label.includes('.') ? label : null
}

/** The app a host label names: an app id, or the url_code's owner (the oldest app with it). */
export async function appOfLabel(apps: AppsRepo, label: string): Promise<AppRecord | null> {
  if (UUID_RE.test(label)) return apps.getById(label)
  if (!LABEL_RE.test(label)) return null
  return (await apps.findByUrlCode(label))[0] ?? null
}

/** The label of an app's origin: its url_code when that is a DNS label it owns, else its id. */
export async function labelOf(apps: AppsRepo, app: AppRecord): Promise<string> {
  if (LABEL_RE.test(app.url_code) && (await apps.findByUrlCode(app.url_code))[0]?.id === app.id) return app.url_code
  return app.id
}

/** The origin of an app, as seen from a request to the main origin. */
export function appOrigin(c: Context<AppEnv>, deps: Deps, label: string): string {
  const template = appsUrlOf(deps)
  if (template) return `${template.protocol}//${label}${template.suffix}${template.port}`
  const url = new URL(c.req.url)
  return `${url.protocol}//${label}.localhost${url.port ? `:${url.port}` : ''}`
}

/** The main origin (API, console, login), as seen from a request to an app origin. */
export function mainOrigin(c: Context<AppEnv>, deps: Deps): string {
  if (deps.publicUrl) return new URL(deps.publicUrl).origin
  const url = new URL(c.req.url)
  return `${url.protocol}//localhost${url.port ? `:${url.port}` : ''}`
}

/** CSP `frame-src` of the console: the app origins (dashboard tiles frame apps). */
export function appsFrameSrc(deps: Deps): string {
  const template = appsUrlOf(deps)
  if (template) return `${template.protocol}//*${template.suffix}${template.port}`
  return 'http://*.localhost:* https://*.localhost:*'
}

/** What `svc serve` says about a console at `publicUrl` beside apps at `appsUrl` (both already parsed as usable). */
export interface AppsUrlRisks {
  /** A setup that must not start: the console's own host would be an app's origin. */
  error?: string
  /** A setup that works but lets an app replace the console's session cookie. */
  warning?: string
}

const IP_HOST = /^(\d+\.\d+\.\d+\.\d+|\[[0-9a-f:.]+\])$/i

/**
 * Checks the console's host against the apps' template. An app's page may set a cookie for any
 * parent domain of its host that is not a public suffix; the console gets it when its host is
 * under that domain too. Over https the console's cookies are `__Host-` (no other host can set
 * them), so only plain http — or https behind a proxy svc is not told to trust — is open: a loud
 * warning. Without the Public Suffix List, a shared parent of two labels or more counts
 * (`example.com`; also `co.uk`, which the warning names as the exception it may be).
 */
export function appsUrlRisks(publicUrl: string, appsUrl: string, trustProxy: boolean): AppsUrlRisks {
  const main = new URL(publicUrl)
  const host = main.hostname.toLowerCase().replace(/\.$/, '')
  const apps = parseAppsUrl(appsUrl)
  if (host.endsWith(apps.suffix) && !host.slice(0, -apps.suffix.length).includes('.')) {
    return {error: `--public-url's host ${host} is itself an app host of --apps-url (*${apps.suffix}): an app could be served as the console. ` +
      'Put the apps under a name of their own, e.g. https://{code}.apps.example.com'}
  }
  if (IP_HOST.test(host)) return {}
  const mine = host.split('.')
  const theirs = apps.suffix.slice(1).split('.')
  let shared = 0
  while (shared < mine.length && shared < theirs.length && mine[mine.length - 1 - shared] === theirs[theirs.length - 1 - shared]) shared++
  if (shared < 2) return {}
  const parent = mine.slice(-shared).join('.')
  const https = main.protocol === 'https:'
  if (https && trustProxy) return {}
  const why = https
    ? `--public-url is https but without --trust-proxy svc cannot tell a request came over https, so the console's session cookie is not a __Host- cookie`
    : `the console is served over plain http, where its session cookie cannot be a __Host- cookie`
  return {warning: `Warning: apps (*${apps.suffix}) share the parent domain ${parent} with the console (${host}) and ${why}: ` +
    `any app can set a svc_session cookie for ${parent} and have a visitor's console calls run in the app author's account. ` +
    `Serve the console over https${https ? ' with --trust-proxy' : ''}, or put the apps on a domain of their own ` +
    `(e.g. https://{code}.example-apps.com); ignore this only if ${parent} is a public suffix (docs/security.md).`}
}
