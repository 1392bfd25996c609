import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import type {AppView} from '../../core/contract/apps.js'
import {isSvcError, SvcError} from '../../core/errors.js'
import {planPush} from '../../core/workspace/plan.js'
import {appResource} from '../../core/workspace/resources.js'
import {describeApp} from '../../dev/app-flags.js'
import {pushAssets} from '../../dev/assets.js'
import {findAppVersion, LEGACY_PROJECT_FILE, PROJECT_FILE, projectResource, readProject, writeProject} from '../../dev/project.js'
import {conflictsOf} from '../../workspace/push.js'
import {appSyncState} from '../../workspace/sync-state.js'
import {colorDiff} from '../push.js'

export default class AppPush extends BackendCommand {
  static description = 'Send an app folder (app.json + source + assets beside it) to the backend: creates the app, or updates the one with its url_code; ' +
    'refuses to overwrite a change made on the backend since the last pull without --force'
  static examples = ['<%= config.bin %> app push ./counter', '<%= config.bin %> app push ws/apps/counter --force']
  static args = {dir: Args.string({description: 'app folder', default: '.'})}
  static flags = {force: Flags.boolean({description: 'overwrite changes made on the backend since the last pull or push, or while the push runs (sends no If-Match)', default: false})}

  async run() {
    const {args, flags} = await this.parse(AppPush)
    const loaded = await readProject(args.dir)
    const client = await this.client(flags)
    const found = await findAppVersion(client, loaded.project)
    const remote = found?.app ?? null
    const local = projectResource(loaded, remote)
    const {state} = await appSyncState(args.dir, client.backend.description)
    let app: AppView
    if (!remote) {
      app = await client.call('createApp', {body: {app: local.body}})
      this.say(`Created app ${app.url_code}`)
    } else {
      const plan = planPush([local], [{...appResource(remote as unknown as Record<string, unknown>), id: remote.id}], {prune: false})
      const change = plan.changes[0]
      if (!change) {
        this.say(`${remote.url_code} is up to date`)
        app = remote
      } else {
        if (conflictsOf(plan.changes, [{...appResource(remote as unknown as Record<string, unknown>), id: remote.id}], state).length && !flags.force) {
          this.say(colorDiff(change.diff))
          throw new SvcError('conflict', 409, `not pushed: ${remote.url_code} changed on the backend since your last pull`, {diff: change.diff},
            'svc app pull to take the backend\'s version, or push --force to overwrite it (the diff above shows what would be lost)')
        }
        this.say(colorDiff(change.diff))
        // If-Match: the version the diff above was made on; a change made on the backend since is never
        // overwritten — unless --force, which overwrites whatever the backend holds.
        const ifMatch: Record<string, string> = found?.etag && !flags.force ? {'if-match': found.etag} : {}
        try {
          app = await client.call('updateApp', {params: {id: remote.id}, headers: ifMatch, body: {app: local.body}})
        } catch (error) {
          if (!isSvcError(error) || error.status !== 412) throw error
          throw new SvcError('conflict', 412, `${remote.url_code} changed on the backend after the diff was made: nothing was pushed`, {url_code: remote.url_code},
            'run svc app push again to see the diff against the current version')
        }
      }
    }
    const assets = await pushAssets(client, app.id, loaded.dir, loaded.sourceFile)
    if (assets.sent.length) this.say(`Assets sent: ${assets.sent.join(', ')}${assets.unchanged ? ` (${assets.unchanged} unchanged)` : ''}`)
    else if (assets.unchanged) this.say(`Assets unchanged (${assets.unchanged})`)
    if (assets.skipped.length) this.note(`not assets, not sent: ${assets.skipped.join(', ')} (docs/apps.md "Assets" lists the types)`)
    // The synced state is the app as the backend stored it (its canonical files), with the folder's
    // own texts beside it: the next push compares the backend against what it holds after this one.
    const rawProject = loaded.legacy ? undefined : await readFile(join(loaded.dir, PROJECT_FILE), 'utf8')
    for (const [path, text] of Object.entries(appResource(app as unknown as Record<string, unknown>).files)) {
      state.set(path, text, path.endsWith('/app.json') ? rawProject : loaded.source)
    }
    await state.save()
    if (loaded.legacy) {
      await writeProject(args.dir, app)
      this.note(`${LEGACY_PROJECT_FILE} is now app.json (the format svc pull writes)`)
    }
    for (const line of describeApp(app, client.backend.baseUrl)) this.say(line)
    return app
  }
}
