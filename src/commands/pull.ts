import {Args, Flags} from '#oclif'
import {BackendCommand} from '../cli/base-command.js'
import {confirmDestructive} from '../cli/confirm.js'
import {withSpinner} from '../cli/spinner.js'
import {SvcError} from '../core/errors.js'
import {remoteResources} from '../workspace/backend.js'
import {applyPull, planPull} from '../workspace/folder.js'
import {SyncState} from '../workspace/sync-state.js'
import {workspaceDir} from '../cli/args.js'

export default class Pull extends BackendCommand {
  static description = "Write the backend's workspace (prompts, dbs, apps, dashboards, flows, connectors) into a folder; files edited since the last pull are not overwritten without --force"
  static examples = ['<%= config.bin %> pull ./workspace', '<%= config.bin %> pull --prune', '<%= config.bin %> pull --force']
  static args = {dir: Args.string({description: 'workspace folder (default: the current folder)'})}
  static flags = {
    dir: Flags.string({char: 'd', description: 'workspace folder (the same as the DIR argument, kept for older scripts)'}),
    prune: Flags.boolean({description: 'also remove files of resources the backend no longer has', default: false}),
    force: Flags.boolean({description: 'overwrite (or remove) files edited in the folder since the last pull or push', default: false}),
  }

  async run() {
    const {args, flags} = await this.parse(Pull)
    const dir = workspaceDir(args.dir, flags.dir)
    const client = await this.client(flags)
    const resources = await withSpinner('Reading the backend', !this.jsonEnabled(), () => remoteResources(client))
    const state = await SyncState.load(dir, client.backend.description)
    const plan = await planPull(dir, resources, {prune: flags.prune}, state)
    if (plan.localChanges.length && !flags.force) {
      const list = plan.localChanges.join(', ')
      const ok = await confirmDestructive({yes: false, action: 'overwriting local changes', message: `Overwrite ${plan.localChanges.length} file(s) edited in the folder since the last pull (${list})?`})
        .catch((error) => {
          if (error instanceof SvcError && error.code === 'usage') {
            throw new SvcError('usage', 0, `not pulled: ${list} changed in the folder since the last pull`, {files: plan.localChanges},
              'push them first (svc push), move them away, or pull --force to overwrite them')
          }
          throw error
        })
      if (!ok) {
        this.say('Nothing written.')
        return {resources: resources.length, written: [], removed: [], local_changes: plan.localChanges}
      }
    }
    const {written, removed} = await applyPull(dir, plan, state)
    for (const path of written) this.say(`wrote ${path}`)
    for (const path of removed) this.say(`removed ${path}`)
    this.say(`${resources.length} resource(s); ${written.length} file(s) written, ${removed.length} removed`)
    return {resources: resources.length, written, removed}
  }
}
