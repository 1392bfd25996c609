/** The HTML page an app is served in (`/a/...` and `svc app dev`): context first, then the app. */
import {engineSpec, type AppEngine} from '../../engines/index.js'

/** `window.SvcAppContext.user` (platform-api.md "Context object"); null for an anonymous visitor. */
export interface ContextUser {
  login: string
  email: string
  name: string
  role: string
  team_ids: number[]
  group_ids: number[]
  department_ids: number[]
  team_names: string[]
  group_names: string[]
  department_names: string[]
}

export interface SvcAppContext {
  user: ContextUser | null
  app: {id: string; name: string; url_code: string; db_code: string | null}
}

export interface ShellOptions {
  engine: AppEngine
  title: string
  context: SvcAppContext
  /** Module (or classic script for `js`) URL of the app code. */
  scriptUrl?: string
  /** Stylesheet URL (compiled component styles and/or server-compiled Tailwind). */
  cssUrl?: string
  /** URL of the CSS engine's browser build, when it has one and the engine's page gets it (registry `cssBrowserLibOf`). */
  cssScriptUrl?: string
  /** `html` engine: the page source itself. */
  html?: string
  /** Extra tags at the end of <head> (the dev server's client). */
  extraHead?: string
}

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'})[c]!)

/** JSON that is safe inside a <script> element. */
export const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')

export const contextScript = (context: SvcAppContext) => `<script>window.SvcAppContext = ${scriptJson(context)};</script>`

/**
 * An empty icon: without one the browser asks for `/favicon.ico`, a 404 that every app page would
 * log as a console error the app did not cause. A page with its own icon keeps it.
 */
export const NO_FAVICON = '<link rel="icon" href="data:,">'

export function renderShell(o: ShellOptions): string {
  const ctx = contextScript(o.context)
  const page = engineSpec(o.engine).page
  if (page.script === 'html') {
    const html = o.html ?? ''
    const head = /<head(\s[^>]*)?>/i.exec(html) ?? /<html(\s[^>]*)?>/i.exec(html)
    const extra = ctx + (/<link\b[^>]*\brel\s*=\s*["']?(shortcut\s+)?icon\b/i.test(html) ? '' : NO_FAVICON) + (o.extraHead ?? '')
    if (head) return html.slice(0, head.index + head[0].length) + extra + html.slice(head.index + head[0].length)
    const doctype = /^\s*<!doctype[^>]*>/i.exec(html)
    if (doctype) return doctype[0] + extra + html.slice(doctype[0].length)
    return extra + html
  }
  const head = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(o.title)}</title>`,
    NO_FAVICON,
    ctx,
    page.cssFramework && o.cssScriptUrl ? `<script src="${escapeHtml(o.cssScriptUrl)}"></script>` : '',
    o.cssUrl ? `<link rel="stylesheet" href="${escapeHtml(o.cssUrl)}">` : '',
    page.fullscreenCanvas ? '<style>html,body{margin:0;height:100%;overflow:hidden}canvas{display:block}</style>' : '',
    o.extraHead ?? '',
  ].filter(Boolean)
  const script = o.scriptUrl
    ? page.script === 'script'
      ? `<script src="${escapeHtml(o.scriptUrl)}"></script>`
      : `<script type="module" src="${escapeHtml(o.scriptUrl)}"></script>`
    : ''
  return `<!doctype html>\n<html lang="en">\n<head>\n${head.join('\n')}\n</head>\n<body>\n<div id="svc-app"></div>\n${script}\n</body>\n</html>\n`
}

export function contextUser(user: ContextUser | null): ContextUser | null {
  if (!user) return null
  return {
    login: user.login, email: user.email, name: user.name, role: user.role,
    team_ids: user.team_ids, group_ids: user.group_ids, department_ids: user.department_ids,
    team_names: user.team_names, group_names: user.group_names, department_names: user.department_names,
  }
}
