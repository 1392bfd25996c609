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
