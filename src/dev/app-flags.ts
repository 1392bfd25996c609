/** Flags shared by `svc app create` and `svc app update`, and the `{app: ...}` body they make. */
import {Flags} from '#oclif'
import {parseJsonArg, readFileOrStdin} from '../cli/read-input.js'
import {SHOW_IN_MODULES} from '../core/apps/validate.js'
import type {AppView} from '../core/contract/apps.js'
import {APP_ENGINES, CSS_ENGINES, engineOfFile, engineSpec} from '../engines/index.js'

export const appFieldFlags = {
  name: Flags.string({description: 'app name'}),
  engine: Flags.string({
    description: `app engine (default: from the --file extension: ${APP_ENGINES.flatMap((e) => engineSpec(e).extensions).map((x) => `.${x}`).join(' ')}; ` +
      `.js/.ts by content). ${APP_ENGINES.map((e) => `${e} is ${engineSpec(e).library}`).join(', ')}; what older code is bridged: docs/apps.md`,
    options: [...APP_ENGINES],
  }),
  css: Flags.string({description: 'CSS engine', options: [...CSS_ENGINES]}),
  file: Flags.string({char: 'f', description: 'file with the source code (- for standard input)'}),
  'url-code': Flags.string({description: 'URL slug (/a/<url-code>)'}),
  description: Flags.string({description: 'description'}),
  public: Flags.boolean({description: 'available without login', allowNo: true}),
  active: Flags.boolean({description: 'served at /a/ (--no-active hides it)', allowNo: true}),
  'db-code': Flags.string({description: 'code of the database the app uses'}),
  'show-in-module': Flags.string({description: `module or page to embed into (${SHOW_IN_MODULES.join(', ')})`}),
  'dashboard-widget': Flags.boolean({description: 'offer as a dashboard tile', allowNo: true}),
  prompt: Flags.string({description: 'AI system prompt'}),
  actions: Flags.string({description: 'actions as a JSON array [{action, flow_code, description, public}]'}),
  fields: Flags.string({description: 'user fields as a JSON object'}),
}

type FieldFlags = {[K in keyof typeof appFieldFlags]?: string | boolean}

/** The `{app: ...}` body of the flags given; `inferEngine` (create) picks the engine from `--file` when `--engine` is not given. */
export async function appBody(flags: FieldFlags, options: {inferEngine?: boolean} = {}): Promise<Record<string, unknown>> {
  const app: Record<string, unknown> = {}
  const str = (k: keyof FieldFlags) => flags[k] as string | undefined
  if (str('name') !== undefined) app.name = str('name')
  if (str('engine') !== undefined) app.app_engine = str('engine')
  if (str('css') !== undefined) app.css_engine = str('css')
  if (str('file') !== undefined) {
    app.source_code = await readFileOrStdin(str('file')!)
    if (options.inferEngine && app.app_engine === undefined) app.app_engine = engineOfFile(str('file')!, String(app.source_code)) ?? undefined
  }
  if (str('url-code') !== undefined) app.url_code = str('url-code')
  if (str('description') !== undefined) app.description = str('description')
  if (flags.public !== undefined) app.public = flags.public
  if (flags.active !== undefined) app.active = flags.active
  if (str('db-code') !== undefined) app.db_code = str('db-code')
  if (str('show-in-module') !== undefined) app.show_in_module = str('show-in-module')
  if (flags['dashboard-widget'] !== undefined) app.dashboard_widget = flags['dashboard-widget']
  if (str('prompt') !== undefined) app.prompt = str('prompt')
  if (str('actions') !== undefined) app.actions = parseJsonArg(str('actions')!, '--actions')
  if (str('fields') !== undefined) app.fields = parseJsonArg(str('fields')!, '--fields')
  return app
}

/** One line per app fact, for a terminal. */
export function describeApp(app: AppView, baseUrl: string): string[] {
  return [
    `${app.name} (${app.id})`,
    `url: ${baseUrl}/a/${app.url_code}`,
    `engine: ${app.app_engine}, css: ${app.css_engine}, ${app.public ? 'public' : 'private'}, ${app.active ? 'active' : 'inactive'}`,
    `build: app ${app.app_build_time} ms, css ${app.css_build_time} ms`,
  ]
}
