import {existsSync} from 'node:fs'
import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {confirmOverwrite} from '../../cli/confirm.js'
import {APP_ENGINES, DEFAULT_APP_ENGINE, SOURCE_FILES} from '../../engines/index.js'
import type {AppView} from '../../core/contract/apps.js'
import {SvcError} from '../../core/errors.js'
import {appBody, appFieldFlags, describeApp} from '../../dev/app-flags.js'
import {LEGACY_PROJECT_FILE, PROJECT_FILE, projectFiles, templateSource, writeProject} from '../../dev/project.js'

/** The files of an app folder (app.json, the old svc-app.json, an engine's source file) that are in `dir`. */
function appFolderFiles(dir: string): string[] {
  const names = new Set([PROJECT_FILE, LEGACY_PROJECT_FILE, ...SOURCE_FILES])
  return [...names].filter((name) => existsSync(join(dir, name)))
}

export default class AppCreate extends BackendCommand {
  static description = 'Create an app from a file or from a starter template; the server compiles it'
  static examples = [
    `<%= config.bin %> app create --template ${DEFAULT_APP_ENGINE} --name "Counter" --dir ./counter`,
    '<%= config.bin %> app create --name Board --file Board.jsx --public',
  ]
  static flags = {
    ...appFieldFlags,
    template: Flags.string({description: 'start from the starter of this engine (templates/)', options: [...APP_ENGINES]}),
    dir: Flags.string({description: 'also write the app folder (app.json + source, as svc pull writes it) for svc app dev/push'}),
    force: Flags.boolean({description: 'write --dir over an app folder that is there (its app.json and source file are replaced)', default: false}),
  }

  async run() {
    const {flags} = await this.parse(AppCreate)
    const app = await appBody(flags, {inferEngine: true})
    if (flags.template) {
      if (flags.file) throw new SvcError('usage', 0, 'give either --template or --file')
      app.app_engine ??= flags.template
      app.source_code = await templateSource(flags.template)
    }
    if (flags.file && !flags.engine && app.app_engine) this.note(`engine: ${String(app.app_engine)} (from ${flags.file}; --engine picks another)`)
    if (app.source_code === undefined) throw new SvcError('usage', 0, 'give the source with --file FILE or --template ENGINE')
    app.name ??= flags.template ? `My ${flags.template} app` : undefined
    // Asked before the app is created: a refusal changes nothing anywhere.
    const replaced = flags.dir ? appFolderFiles(flags.dir) : []
    if (flags.dir && !(await confirmOverwrite({files: replaced.map((f) => join(flags.dir!, f)), force: flags.force,
      message: `${flags.dir} already holds an app (${replaced.join(', ')}). Create the app and replace them?`,
      hint: `pass --force to replace them, or --dir with a new folder (svc app push ${flags.dir} sends the app that is there)`}))) {
      this.say('Nothing created.')
      return null
    }
    const client = await this.client(flags)
    const created = await client.call('createApp', {body: {app}})
    for (const line of describeApp(created, client.backend.baseUrl)) this.say(line)
    if (flags.dir) {
      const written = await writeProject(flags.dir, created)
      const kept = Object.keys(projectFiles(created))
      for (const stale of replaced.filter((f) => !kept.includes(f))) await rm(join(flags.dir, stale), {force: true})
      this.say(`wrote ${written}`)
    }
    return created
  }
}
