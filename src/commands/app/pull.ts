import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import {confirmDestructive} from '../../cli/confirm.js'
import type {AppView} from '../../core/contract/apps.js'
import {SvcError} from '../../core/errors.js'
import {projectFiles, resolveAppId, writeProject} from '../../dev/project.js'
import {appSyncState} from '../../workspace/sync-state.js'

export default class AppPull extends BackendCommand {
  static description = 'Write an app into a folder (app.json + source file, as `svc pull` writes apps/<url_code>/) for editing, push and dev'
  static examples = ['<%= config.bin %> app pull counter', '<%= config.bin %> app pull counter ./work/counter --force']
  static args = {
    app: Args.string({description: 'app id or url_code', required: true}),
    dir: Args.string({description: 'folder (default: the url_code)'}),
  }
  static flags = {force: Flags.boolean({description: 'overwrite files edited in the folder since the last pull or push', default: false})}

  async run() {
    const {args, flags} = await this.parse(AppPull)
    const client = await this.client(flags)
    const app = await client.call('getApp', {params: {id: await resolveAppId(client, args.app)}})
    const dir = args.dir ?? app.url_code
    const files = projectFiles(app)
    const {state} = await appSyncState(dir, client.backend.description)
    const key = (name: string) => `apps/${app.url_code}/${name}`
    const edited = Object.keys(files).filter((name) => {
      const path = join(dir, name)
      if (!existsSync(path)) return false
      const text = readFileSync(path, 'utf8')
      return text !== files[name] && !state.unchangedSince(key(name), text)
    })
    if (edited.length && !flags.force) {
      const refusal = new SvcError('usage', 0, `not pulled: ${edited.join(', ')} in ${dir} changed since the last pull`, {files: edited},
        'push them first (svc app push), or pull --force to overwrite them')
      const ok = await confirmDestructive({yes: false, action: 'overwriting local changes', message: `Overwrite ${edited.join(', ')} (edited since the last pull)?`})
        .catch(() => {
          throw refusal
        })
      if (!ok) {
        this.say('Nothing written.')
        return {id: app.id, file: null}
      }
    }
    const file = await writeProject(dir, app)
    for (const [name, text] of Object.entries(files)) state.set(key(name), text)
    await state.save()
    this.say(`wrote ${file}`)
    return {id: app.id, file}
  }
}
