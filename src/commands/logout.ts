import {Args, Flags} from '#oclif'
import {loadProfiles, removeProfile} from '../client/profiles.js'
import {SvcCommand} from '../cli/base-command.js'
import {SvcError} from '../core/errors.js'

export default class Logout extends SvcCommand {
  static description = 'Forget a saved profile and its token'
  static examples = ['<%= config.bin %> logout', '<%= config.bin %> logout prod']
  static args = {name: Args.string({description: 'profile name (default: the current one)'})}
  static flags = {name: Flags.string({description: 'profile name (same as the argument)', env: 'SVC_PROFILE'})}

  async run() {
    const {args, flags} = await this.parse(Logout)
    const name = args.name ?? flags.name ?? loadProfiles().current
    if (!name) throw new SvcError('not_found', 404, 'no profile is saved', undefined, 'svc profile list')
    if (!removeProfile(name)) throw new SvcError('not_found', 404, `no profile "${name}"`, undefined, 'svc profile list')
    this.say(`Removed profile "${name}"`)
    return {profile: name, removed: true}
  }
}
